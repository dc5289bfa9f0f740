import PTPWire
import XCTest

@testable import Capture

/// Issue 29: the bracketing run's steps, frame after frame, without a camera.
final class BracketRunTests: XCTestCase {
    private let t0 = Date(timeIntervalSince1970: 1_000_000)
    private func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

    private func makeRun(_ list: String = "1/1000,1/250,1/60", sets: Int = 1) throws -> BracketRun {
        BracketRun(plan: try BracketPlan.listed(list, sets: sets))
    }

    /// Drives the next frame through set and confirm to its release, which answers `release`;
    /// returns the frame, nil when the run asked for something else.
    @discardableResult
    private func release(_ run: inout BracketRun, at time: Double, answering release: BracketRun.Release = .accepted) -> BracketFrame? {
        guard case .setSpeed(let frame) = run.next(now: at(time)) else { return nil }
        run.speedConfirmed()
        guard case .fire(let fired) = run.next(now: at(time)), fired == frame else { return nil }
        run.fired(release, now: at(time))
        return frame
    }

    /// Drives one frame through set, confirm, fire, photo.
    private func take(_ run: inout BracketRun, at time: Double, name: String) -> BracketFrame? {
        guard release(&run, at: time) != nil else { return nil }
        return run.photoAppeared(fileName: name).map { run.plan.frames[$0] }
    }

    func testFramesGoInOrderAndTheSpeedIsConfirmedBeforeTheRelease() throws {
        var run = try makeRun()
        XCTAssertEqual(run.next(now: t0), .paused, "nothing before the camera is ready")
        run.cameraReady(now: t0)
        guard case .setSpeed(let first) = run.next(now: t0) else { return XCTFail() }
        XCTAssertEqual(first.speed.description, "1/1000")
        XCTAssertEqual(run.next(now: at(1)), .confirmSpeed(first, until: at(BracketRun.confirmTimeout)), "no release before")
        run.fired(.accepted, now: at(1))
        XCTAssertEqual(run.next(now: at(1)), .confirmSpeed(first, until: at(BracketRun.confirmTimeout)), "a release unasked is ignored")
        run.speedConfirmed()
        XCTAssertEqual(run.next(now: at(1)), .fire(first))
        run.fired(.accepted, now: at(1))
        XCTAssertEqual(run.next(now: at(2)), .wait(until: at(1 + 0.001 + BracketRun.photoTimeout)))
        XCTAssertEqual(run.photoAppeared(fileName: "DSC_0001.JPG"), 0)
        XCTAssertEqual(run.plan.frames[0], first)
        XCTAssertEqual(take(&run, at: 3, name: "DSC_0002.JPG")?.speed.description, "1/250")
        XCTAssertEqual(take(&run, at: 4, name: "DSC_0003.JPG")?.speed.description, "1/60")
        XCTAssertEqual(run.next(now: at(5)), .finished)
        XCTAssertTrue(run.isComplete)
        XCTAssertEqual(run.summary, "complete: 3 of 3 exposures")
    }

    func testAPhotoIsAwaitedItsExposurePlusTenSecondsThenTheFrameFails() throws {
        var run = try makeRun("30,1/60")
        run.cameraReady(now: t0)
        release(&run, at: 0)
        XCTAssertEqual(run.next(now: at(39)), .wait(until: at(40)), "a 30 s exposure is no failure")
        guard case .setSpeed(let second) = run.next(now: at(40)) else { return XCTFail() }
        XCTAssertEqual(second.speed.description, "1/60")
        XCTAssertEqual(run.outcomes[0], .failed(reason: "no photo came within 40 s of the release"))
        XCTAssertNil(run.photoAppeared(fileName: "late.JPG"), "not fired yet: no frame takes it")
    }

    func testDeviceBusyIsAskedAgainThenTheFrameFails() throws {
        var run = try makeRun("1/250,1/60")
        run.cameraReady(now: t0)
        release(&run, at: 0, answering: .busy)
        XCTAssertEqual(run.next(now: at(0.1)), .wait(until: at(0.3)))
        guard case .fire = run.next(now: at(0.3)) else { return XCTFail() }
        run.fired(.busy, now: at(0.3))
        XCTAssertEqual(run.next(now: at(0.4)), .wait(until: at(0.9)))
        _ = run.next(now: at(0.9))
        run.fired(.accepted, now: at(0.9))
        XCTAssertNotNil(run.photoAppeared(fileName: "a.JPG"), "busy twice, then taken")

        _ = run.next(now: at(1))
        run.speedConfirmed()
        for attempt in 0..<3 {
            _ = run.next(now: at(10 + Double(attempt)))
            run.fired(.busy, now: at(10 + Double(attempt)))
        }
        XCTAssertEqual(run.outcomes[1], .failed(reason: "the camera answered DeviceBusy 3 times"))
        XCTAssertEqual(run.next(now: at(20)), .finished)
        XCTAssertEqual(run.summary, "done: 1 of 2 captured, 1 failed")
    }

    func testTheCameraGoingAwayPausesTheRunAtTheSameFrame() throws {
        var run = try makeRun()
        run.cameraReady(now: t0)
        XCTAssertNotNil(take(&run, at: 0, name: "1.JPG"))
        guard case .setSpeed(let second) = run.next(now: at(1)) else { return XCTFail() }
        run.cameraGone()
        XCTAssertEqual(run.next(now: at(2)), .paused)
        XCTAssertEqual(run.next(now: at(60)), .paused, "paused for as long as it is away")
        run.cameraReady(now: at(61))
        XCTAssertEqual(run.next(now: at(61)), .setSpeed(second), "the speed is set again on the new session")

        // Fired, then gone: its photo is awaited afresh once the camera is back.
        run.speedConfirmed()
        _ = run.next(now: at(61))
        run.fired(.accepted, now: at(61))
        run.cameraGone()
        run.cameraReady(now: at(200))
        XCTAssertEqual(run.next(now: at(200)), .wait(until: at(210.004)))
        XCTAssertEqual(run.photoAppeared(fileName: "2.JPG").map { run.plan.frames[$0] }, second)
    }

    func testASpeedTheBodyDoesNotConfirmStopsTheRunBeforeAnyRelease() throws {
        var run = try makeRun()
        run.cameraReady(now: t0)
        XCTAssertNotNil(take(&run, at: 0, name: "1.JPG"))
        _ = run.next(now: at(1))
        XCTAssertEqual(run.next(now: at(1 + BracketRun.confirmTimeout)), .finished)
        XCTAssertEqual(
            run.summary, "stopped at set 1, frame 2: 1 of 3 captured (set 1, frame 2: the camera did not confirm 1/250 within 5 s)")
    }

    func testAStopEndsAfterTheFrameUnderWayAndResumeFiresOnlyWhatIsLeft() throws {
        var run = try makeRun("1/1000,1/250,1/60", sets: 2)
        run.cameraReady(now: t0)
        XCTAssertNotNil(take(&run, at: 0, name: "1.JPG"))
        guard case .setSpeed = run.next(now: at(1)) else { return XCTFail() }
        run.speedConfirmed()
        _ = run.next(now: at(1))
        run.fired(.accepted, now: at(1))
        run.requestStop()
        XCTAssertEqual(run.next(now: at(1.5)), .wait(until: at(11.004)), "the frame under way ends first")
        XCTAssertNotNil(run.photoAppeared(fileName: "2.JPG"))
        XCTAssertEqual(run.next(now: at(2)), .finished)
        XCTAssertEqual(run.summary, "stopped at set 1, frame 3: 2 of 6 captured")

        let saved = try JSONDecoder().decode(BracketRun.self, from: try JSONEncoder().encode(run))
        var resumed = saved
        resumed.resume()
        resumed.cameraReady(now: at(100))
        var fired: [String] = []
        for index in 0..<4 {
            guard let frame = take(&resumed, at: 100 + Double(index), name: "r\(index).JPG") else { return XCTFail() }
            fired.append("\(frame.set).\(frame.frame) \(frame.speed)")
        }
        XCTAssertEqual(fired, ["1.3 1/60", "2.1 1/1000", "2.2 1/250", "2.3 1/60"], "only the frames left, same plan")
        XCTAssertEqual(resumed.summary, "complete: 6 of 6 exposures")
    }

    func testAFailedFrameIsFiredAgainOnResume() throws {
        var run = try makeRun("1/1000,1/250")
        run.cameraReady(now: t0)
        release(&run, at: 0, answering: .refused("the camera answered GeneralError"))
        XCTAssertNotNil(take(&run, at: 1, name: "2.JPG"))
        XCTAssertEqual(run.next(now: at(2)), .finished)
        run.resume()
        run.cameraReady(now: at(3))
        XCTAssertEqual(take(&run, at: 3, name: "1.JPG")?.speed.description, "1/1000")
        XCTAssertEqual(run.next(now: at(4)), .finished, "the captured second frame is not fired again")
        XCTAssertTrue(run.isComplete)
    }

    /// A release whose answer never came (the connection dropped in it) may have been taken:
    /// the frame's photo is awaited once the camera is back, and only when none comes is the
    /// frame fired again.
    func testAReleaseCutByTheCameraGoingAwayIsAwaitedBeforeItIsFiredAgain() throws {
        var run = try makeRun("1/250,1/60")
        run.cameraReady(now: t0)
        guard case .setSpeed = run.next(now: t0) else { return XCTFail() }
        run.speedConfirmed()
        guard case .fire(let frame) = run.next(now: t0) else { return XCTFail() }
        run.cameraGone()
        run.cameraReady(now: at(30))
        XCTAssertEqual(run.next(now: at(30)), .wait(until: at(40.004)), "its photo is awaited")
        var taken = run
        XCTAssertEqual(taken.photoAppeared(fileName: "1.JPG").map { taken.plan.frames[$0] }, frame)
        XCTAssertEqual(run.next(now: at(41)), .setSpeed(frame), "no photo: it did not fire, so it is fired again")
        XCTAssertTrue(run.outcomes.isEmpty, "not counted as failed")
    }

    /// Photos announced and not looked at yet may hold the awaited one: no frame fails meanwhile.
    func testAPhotoIsNotGivenUpWhileAnnouncedPhotosWait() throws {
        var run = try makeRun("1/250,1/60")
        run.cameraReady(now: t0)
        release(&run, at: 0)
        XCTAssertEqual(run.next(now: at(30), photosPending: true), .wait(until: at(30)))
        XCTAssertTrue(run.outcomes.isEmpty)
        XCTAssertNotNil(run.photoAppeared(fileName: "1.JPG"))
    }

    /// A run of more frames than the ledger keeps in detail counts each frame once.
    func testTheLedgerCountsEachFrameOnceHoweverLongTheRun() throws {
        let speeds = Array(repeating: "1/250", count: 70).joined(separator: ",")
        var ledger = CaptureLedger(bracket: try BracketPlan.listed(speeds), arguments: [])
        ledger.bracket?.cameraReady(now: t0)
        for index in 0..<70 {
            var run = try XCTUnwrap(ledger.bracket)
            XCTAssertNotNil(take(&run, at: Double(index), name: "IMG_\(index).JPG"))
            ledger.bracket = run
            ledger.mirrorBracketFrames()
            ledger.mirrorBracketFrames()
        }
        XCTAssertEqual(ledger.counts.captured, 70)
        XCTAssertEqual(ledger.counts.lastNumber, 70)
        XCTAssertTrue(ledger.isComplete)
        let saved = try JSONDecoder().decode(CaptureLedger.self, from: try JSONEncoder().encode(ledger))
        var again = saved
        again.mirrorBracketFrames()
        XCTAssertEqual(again.counts.captured, 70, "a saved ledger does not count its frames again")
    }
}
