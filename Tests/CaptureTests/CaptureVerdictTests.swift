import Capture
import Foundation
import XCTest

/// The exit-code rule of a capture run: shots fell due and none was captured.
final class CaptureVerdictTests: XCTestCase {
    private let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    private func started(count: Int) -> CaptureLedger {
        var ledger = CaptureLedger(interval: 1, total: count, endsAt: nil, arguments: [])
        ledger.start(at: t0)
        return ledger
    }

    func testARunWhoseEveryShotFailedFailed() {
        var ledger = started(count: 1)
        let shot = ledger.takeDue(now: t0, cameraReady: true, reasonIfAway: "")
        XCTAssertNil(ledger.nothingCaptured, "a shot waiting for its photo is not a verdict yet")
        ledger.triggerFailed(shot!, reason: "the camera answered DeviceBusy 3 times")
        XCTAssertEqual(ledger.nothingCaptured, "no shot was captured (last: the camera answered DeviceBusy 3 times)")
    }

    func testShotsMissedWhileTheCameraWasAwayAreWorkThatFailed() {
        var ledger = started(count: 2)
        _ = ledger.takeDue(now: t0.addingTimeInterval(5), cameraReady: false, reasonIfAway: "the camera was not connected")
        XCTAssertEqual(ledger.nothingCaptured, "no shot was captured (last: the camera was not connected)")
    }

    func testOneCapturedShotMakesTheRunASuccessAndNothingDueIsNoFailure() {
        XCTAssertNil(started(count: 3).nothingCaptured, "stopped before the first shot: nothing failed")
        var ledger = started(count: 2)
        let first = ledger.takeDue(now: t0, cameraReady: true, reasonIfAway: "")!
        ledger.triggerFailed(first, reason: "busy")
        _ = ledger.takeDue(now: t0.addingTimeInterval(1), cameraReady: true, reasonIfAway: "")
        _ = ledger.photoAppeared(fileName: "IMG_0001.JPG", firedBefore: nil, willUpload: true)
        XCTAssertNil(ledger.nothingCaptured)
    }
}
