import Capture
import Foundation
import XCTest

final class CaptureLedgerTests: XCTestCase {
    private let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    private func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

    private func ledger(count: Int? = 5, endsAt: Date? = nil, every: Double = 10) -> CaptureLedger {
        var ledger = CaptureLedger(interval: every, total: count, endsAt: endsAt, arguments: ["--every", "10s"])
        ledger.start(at: t0)
        return ledger
    }

    func testNothingFallsDueBeforeTheCameraIsFirstReady() {
        var ledger = CaptureLedger(interval: 1, total: 3, endsAt: nil, arguments: [])
        XCTAssertNil(ledger.takeDue(now: at(100), cameraReady: false, reasonIfAway: "away"))
        XCTAssertEqual(ledger.counts.missed, 0, "connecting is not missing shots")
        XCTAssertFalse(ledger.isComplete)
    }

    func testTheFirstShotIsAtOnceAndTheNextOnesEveryInterval() {
        var ledger = ledger()
        XCTAssertEqual(ledger.takeDue(now: at(0), cameraReady: true, reasonIfAway: ""), 1)
        XCTAssertNil(ledger.takeDue(now: at(9.9), cameraReady: true, reasonIfAway: ""))
        XCTAssertEqual(ledger.takeDue(now: at(10.05), cameraReady: true, reasonIfAway: ""), 2)
        XCTAssertEqual(ledger.nextDue, at(20))
    }

    func testShotsDueWhileTheCameraIsAwayAreMissedWithTheReason() {
        var ledger = ledger()
        _ = ledger.takeDue(now: at(0), cameraReady: true, reasonIfAway: "")
        XCTAssertNil(ledger.takeDue(now: at(25), cameraReady: false, reasonIfAway: "camera away"))
        XCTAssertEqual(ledger.counts.missed, 2)
        XCTAssertEqual(ledger.shots.filter { $0.outcome == .missed }.map(\.reason), ["camera away", "camera away"])
        XCTAssertEqual(ledger.takeDue(now: at(30.2), cameraReady: true, reasonIfAway: ""), 4)
    }

    func testACameraHeldUpUntilTheNextShotMissesTheEarlierOne() {
        var ledger = ledger()
        _ = ledger.takeDue(now: at(0), cameraReady: true, reasonIfAway: "")
        XCTAssertEqual(ledger.takeDue(now: at(21), cameraReady: true, reasonIfAway: ""), 3, "shot 2 is late by a whole interval")
        XCTAssertEqual(ledger.shot(2)?.outcome, .missed)
        XCTAssertEqual(ledger.takeDue(now: at(45), cameraReady: true, reasonIfAway: ""), 5, "the last shot fires even late")
        XCTAssertNil(ledger.nextDue)
    }

    func testPhotosConfirmShotsInOrderAndCompanionsJoinTheirShot() {
        var ledger = ledger()
        _ = ledger.takeDue(now: at(0), cameraReady: true, reasonIfAway: "")
        XCTAssertEqual(ledger.photoAppeared(fileName: "IMG_0007.CR3", firedBefore: nil, willUpload: false), 1)
        XCTAssertEqual(ledger.photoAppeared(fileName: "IMG_0007.JPG", firedBefore: nil, willUpload: true), 1)
        XCTAssertEqual(ledger.counts.captured, 1)
        XCTAssertEqual(ledger.uploadsPending, 1)
        XCTAssertNil(
            ledger.photoAppeared(fileName: "IMG_0008.JPG", firedBefore: nil, willUpload: true),
            "a photo no trigger asked for (the photographer pressed the button) is no shot")
        ledger.markUpload(1, at: "gallery", delivered: true, counted: ["gallery"])
        ledger.markUpload(1, at: "gallery", delivered: true, counted: ["gallery"])
        XCTAssertEqual(ledger.counts.uploaded, 1, "counted once")
        XCTAssertEqual(ledger.uploadsPending, 0)
    }

    /// A shot is uploaded once every destination that counts (those of normal priority) has its
    /// photo, whichever delivered first; a low-priority backup's refusal fails nothing.
    func testAShotIsUploadedOnceEveryNormalDestinationHasIt() throws {
        let counted: Set<String> = ["web", "archive"]
        var ledger = ledger()
        _ = ledger.takeDue(now: at(0), cameraReady: true, reasonIfAway: "")
        _ = ledger.photoAppeared(fileName: "IMG_0001.JPG", firedBefore: nil, willUpload: true)
        ledger.markUpload(1, at: "archive", delivered: true, counted: counted)
        ledger.markUpload(1, at: "backup", delivered: false, counted: counted)
        XCTAssertEqual(ledger.counts.uploaded, 0, "the web gallery does not have it yet")
        XCTAssertEqual(ledger.uploadsPending, 1)
        XCTAssertEqual(ledger.shot(1)?.uploadFailed, false, "the backup is not counted")

        var resumed = try JSONDecoder().decode(CaptureLedger.self, from: JSONEncoder().encode(ledger))
        resumed.markUpload(1, at: "web", delivered: true, counted: counted)
        XCTAssertEqual(resumed.counts.uploaded, 1, "the archive's delivery before the restart counts")
        XCTAssertEqual(resumed.shot(1)?.deliveredTo, ["archive", "web"])
        XCTAssertEqual(resumed.uploadsPending, 0)

        ledger.markUpload(1, at: "web", delivered: false, counted: counted)
        XCTAssertEqual(ledger.shot(1)?.uploadFailed, true, "a counted destination refused it for good")
        XCTAssertEqual(ledger.counts.uploaded, 0)
        XCTAssertEqual(ledger.uploadsPending, 0)
    }

    /// A `capture.json` saved before deliveries were recorded per destination is read as it was.
    func testALedgerSavedBeforeDeliveriesPerDestinationStillLoads() throws {
        let saved = #"""
            {"interval":10,"total":2,"arguments":["--every","10s"],"anchorNumber":1,"anchor":0,"ended":false,
             "counts":{"fired":1,"captured":1,"failed":0,"missed":0,"uploaded":0,"lastNumber":1},
             "shots":[{"number":1,"dueAt":0,"outcome":"captured","triggeredAt":0,"fileName":"IMG_0001.JPG",
                       "uploadExpected":true,"uploaded":false,"uploadFailed":false}]}
            """#
        var ledger = try JSONDecoder().decode(CaptureLedger.self, from: Data(saved.utf8))
        XCTAssertNil(ledger.shot(1)?.deliveredTo)
        XCTAssertEqual(ledger.uploadsPending, 1)
        ledger.markUpload(1, at: "web", delivered: true, counted: ["web"])
        XCTAssertEqual(ledger.counts.uploaded, 1)
    }

    func testAPhotoOnTheCardAtConnectOnlyConfirmsAShotFiredBefore() {
        var ledger = ledger()
        _ = ledger.takeDue(now: at(0), cameraReady: true, reasonIfAway: "")
        XCTAssertNil(ledger.photoAppeared(fileName: "IMG_0001.JPG", firedBefore: at(-5), willUpload: true))
        XCTAssertEqual(ledger.photoAppeared(fileName: "IMG_0002.JPG", firedBefore: at(5), willUpload: true), 1)
    }

    func testShotsWithoutAPhotoFailAfterTheTimeout() {
        var ledger = ledger()
        _ = ledger.takeDue(now: at(0), cameraReady: true, reasonIfAway: "")
        XCTAssertTrue(ledger.expire(now: at(9), timeout: 10).isEmpty)
        XCTAssertEqual(ledger.expire(now: at(10.5), timeout: 10).map(\.number), [1])
        XCTAssertEqual(ledger.shot(1)?.reason, "no photo from the camera within 10s of the trigger")
        XCTAssertNil(ledger.photoAppeared(fileName: "IMG_0001.JPG", firedBefore: nil, willUpload: true))
    }

    /// A 30 s exposure the camera reported is waited for on top of the timeout.
    func testALongExposureIsWaitedForBeforeTheShotFails() throws {
        var ledger = ledger()
        XCTAssertEqual(ledger.takeDue(now: at(0), cameraReady: true, reasonIfAway: ""), 1)
        ledger.triggerAccepted(1, exposureSeconds: 30)
        XCTAssertTrue(ledger.expire(now: at(35), timeout: 10).isEmpty)
        let failed = ledger.expire(now: at(40.5), timeout: 10)
        XCTAssertEqual(failed.map(\.number), [1])
        XCTAssertEqual(failed.first?.reason, "no photo from the camera within 40s of the trigger")
        let saved = try JSONDecoder().decode(CaptureLedger.self, from: JSONEncoder().encode(ledger))
        XCTAssertEqual(saved.shot(1)?.exposureSeconds, 30)
    }

    func testSummaries() {
        var ledger = ledger(count: 3)
        for second in [0.0, 10, 20] {
            if let shot = ledger.takeDue(now: at(second), cameraReady: true, reasonIfAway: "") {
                _ = ledger.photoAppeared(fileName: "IMG_\(shot).JPG", firedBefore: nil, willUpload: true)
                ledger.markUpload(shot, at: "gallery", delivered: true, counted: ["gallery"])
            }
        }
        XCTAssertTrue(ledger.isComplete)
        XCTAssertEqual(ledger.summary(stopped: false), "3 of 3 captured, 3 uploaded")

        var stopped = self.ledger(count: 15)
        for second in stride(from: 0.0, through: 70, by: 10) {
            guard let shot = stopped.takeDue(now: at(second), cameraReady: true, reasonIfAway: "") else { continue }
            if shot == 4 {
                stopped.triggerFailed(shot, reason: "busy")
            } else {
                _ = stopped.photoAppeared(fileName: "IMG_\(shot).JPG", firedBefore: nil, willUpload: true)
            }
        }
        XCTAssertEqual(stopped.summary(stopped: true), "stopped at shot 8 of 15: 7 captured, 1 failed; 0 uploaded")
    }

    func testRunsBoundedByAnEndTimePlanTheirShots() {
        var ledger = ledger(count: nil, endsAt: at(45))
        XCTAssertEqual(ledger.plannedShots, 5, "due at 0, 10, 20, 30, 40")
        for second in [0.0, 10, 20, 30, 40, 50] { _ = ledger.takeDue(now: at(second), cameraReady: true, reasonIfAway: "") }
        XCTAssertEqual(ledger.counts.lastNumber, 5)
        XCTAssertNil(ledger.nextDue)
    }

    func testResumeGoesOnFromTheNextShotOnceTheCameraIsBack() throws {
        var ledger = ledger(count: 6)
        _ = ledger.takeDue(now: at(0), cameraReady: true, reasonIfAway: "")
        _ = ledger.takeDue(now: at(10), cameraReady: true, reasonIfAway: "")
        _ = ledger.photoAppeared(fileName: "IMG_1.JPG", firedBefore: nil, willUpload: true)
        let saved = try JSONDecoder().decode(CaptureLedger.self, from: JSONEncoder().encode(ledger))
        XCTAssertEqual(saved, ledger)
        var resumed = saved
        resumed.resume()
        XCTAssertNil(resumed.takeDue(now: at(600), cameraReady: false, reasonIfAway: "away"), "waits for the camera")
        XCTAssertEqual(resumed.counts.missed, 0)
        resumed.start(at: at(700))
        XCTAssertTrue(resumed.expire(now: at(705), timeout: 10).isEmpty, "shot 2 waits for its photo again from the restart")
        XCTAssertEqual(resumed.takeDue(now: at(700), cameraReady: true, reasonIfAway: ""), 3)
        XCTAssertEqual(
            resumed.photoAppeared(fileName: "IMG_2.JPG", firedBefore: at(700), willUpload: true), 2,
            "the photo shot while relay was stopped is shot 2's")
    }
}
