import Foundation
import TestSupport
import XCTest

/// `relay capture` end to end: the real relay executable fires the camera simulator over real
/// sockets, and the photos reach the real gallery process.
final class CaptureRunTests: XCTestCase {
    /// Waits for a capture run to end by itself; returns its exit status (nil: still running).
    private func waitForEnd(_ run: Subprocess, timeout: TimeInterval = 90, file: StaticString = #filePath, line: UInt = #line) -> Int32? {
        let status = run.wait(timeout: timeout)
        XCTAssertNotNil(status, "relay capture did not end:\n\(run.stderr.suffix(4000))", file: file, line: line)
        if status == nil { _ = run.stop(signal: SIGKILL) }
        return status
    }

    // MARK: - A run of 8, each profile

    func testCanonEightShotsOneSecondApart() throws { try checkEightShots(profile: "canon-eos") }
    func testNikonEightShotsOneSecondApart() throws { try checkEightShots(profile: "nikon") }
    func testGenericEightShotsOneSecondApart() throws { try checkEightShots(profile: "generic") }

    /// Eight shots at the shortest interval (1 s): the shot count is the test's length.
    private func checkEightShots(profile: String) throws {
        let gallery = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "capture e2e")
        let sim = try CameraSimProcess(profile: profile, arguments: ["--raw", "--photo-size", "60k", "--raw-size", "60k"])
        defer { sim.stop() }
        let run = try harness.startCapture(sim.cameraURL, ["--every", "1s", "--count", "8"])
        XCTAssertEqual(waitForEnd(run), 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("8 of 8 captured, 8 uploaded"), run.stdout + run.stderr.suffix(3000))
        XCTAssertEqual(try gallery.photos().count, 8, "the 3 photos on the card before the run stay there")
        let history = try harness.history().filter(\.success).sorted { $0.captureNumber < $1.captureNumber }
        XCTAssertEqual(history.map(\.captureNumber), Array(1...8))
        XCTAssertTrue(history.allSatisfy(\.isTimerCapture))
        let times = history.compactMap(\.date)
        XCTAssertEqual(times.count, 8)
        let span = times.last!.timeIntervalSince(times.first!)
        XCTAssertEqual(span, 7, accuracy: 1.5, "8 shots a second apart span about 7 s")
        for (earlier, later) in zip(times, times.dropFirst()) {
            XCTAssertEqual(later.timeIntervalSince(earlier), 1, accuracy: 0.8, "shots about a second apart: \(times)")
        }
    }

    // MARK: - Busy and failed triggers

    /// The camera answers the shutter releases: shot 1 busy once then OK, shot 2 OK, shot 3 busy
    /// three times (failed), shot 4 OK, shot 5 OK without a photo (failed after the timeout).
    func testBusyTriggersAreRetriedAndFailedShotsAreCounted() throws {
        let gallery = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "capture e2e")
        let sim = try CameraSimProcess(profile: "canon-eos", arguments: ["--capture-answers", "B..BBB.N", "--verbose"])
        defer { sim.stop() }
        let run = try harness.startCapture(sim.cameraURL, ["--every", "1s", "--count", "5", "--shot-timeout", "2s"])
        XCTAssertEqual(waitForEnd(run), 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("3 of 5 captured, 3 uploaded, 2 failed"), run.stdout + run.stderr.suffix(3000))
        XCTAssertTrue(run.stderr.contains("shot 1 of 5: fired after 1 DeviceBusy answer(s)"), run.stderr)
        XCTAssertTrue(run.stderr.contains("shot 3 of 5 FAILED: the camera answered DeviceBusy 3 times"), run.stderr)
        // --shot-timeout plus the 2.5 s exposure of the recorded R50 property dump (ShutterSpeed 0x2D).
        XCTAssertTrue(
            run.stderr.contains("shot 5 of 5 FAILED: no photo from the camera within 4s of the trigger")
                || run.stderr.contains("shot 5 of 5 FAILED: no photo from the camera within 5s of the trigger"), run.stderr)
        let presses = sim.log.split(separator: "\n").filter { $0.contains("RemoteReleaseOn") }
        XCTAssertEqual(presses.filter { $0.contains("(2,0)") }.count, 8, "8 full presses: 2 + 1 + 3 + 1 + 1")
        XCTAssertEqual(presses.filter { $0.contains("(1,0)") }.count, 8, "each after a half press, as the shutter button")
        XCTAssertEqual(try gallery.photos().count, 3)
        XCTAssertEqual(try harness.history().map(\.captureNumber).sorted(), [1, 2, 4])
    }

    // MARK: - The camera goes away

    func testACameraThatSleepsPausesTheRunAndEveryShotIsAccountedFor() throws {
        let gallery = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "capture e2e")
        let sim = try CameraSimProcess(profile: "nikon")
        defer { sim.stop() }
        // Eight shots a second apart (the shortest interval), the camera asleep for two seconds
        // after the third: relay, reconnecting after 0.5, 1.5 and 3.5 s, misses the three shots
        // due meanwhile and is back for the last two. Twelve shots and four seconds asleep (back
        // at relay's attempt 7.5 s after the loss) took 12 s to show the same.
        let run = try harness.startCapture(sim.cameraURL, ["--every", "1s", "--count", "8"])
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { run.stderr.contains("shot 3 of 8: captured") }, run.stderr)
        sim.sleep(seconds: 2)
        XCTAssertEqual(waitForEnd(run), 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("capture paused: the camera is gone"), run.stderr)
        XCTAssertTrue(run.stderr.contains("capture resumes"), run.stderr)
        let summary = run.stdout
        let counts = ["captured", "failed", "missed"].map { word -> Int in
            let pattern = word == "captured" ? "(\\d+) of 8 captured" : "(\\d+) \(word)"
            guard let range = summary.range(of: pattern, options: .regularExpression) else { return 0 }
            return Int(summary[range].split(separator: " ")[0]) ?? 0
        }
        XCTAssertGreaterThanOrEqual(counts[2], 2, "shots that fell due while the camera slept are missed: \(summary)")
        XCTAssertEqual(counts.reduce(0, +), 8, "every shot is captured, failed or missed: \(summary)")
        XCTAssertEqual(try gallery.photos().count, counts[0])
        let missed = run.stderr.components(separatedBy: "missed: the camera was not connected").count - 1
        XCTAssertEqual(missed, counts[2], "each missed shot is reported")
    }

    // MARK: - Crash and resume

    func testARunKilledWithSIGKILLResumesAndTakesOnlyTheRemainingShots() throws {
        let gallery = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "capture e2e", ["--manifest-url", gallery.manifestURL])
        let sim = try CameraSimProcess(profile: "generic")
        defer { sim.stop() }
        let first = try harness.startCapture(sim.cameraURL, ["--every", "1s", "--count", "8"])
        // Killed once three photos are delivered and recorded: a kill between a 2xx and its history
        // record loses that record (the photo itself is delivered once either way).
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) {
                (try? gallery.photos().count) ?? 0 >= 3 && ((try? harness.history().filter(\.success).count) ?? 0) >= 3
            }, first.stderr)
        _ = first.stop(signal: SIGKILL)
        let run = try Subprocess(TestPaths.relayExecutable, ["capture", "--resume"], environment: harness.environment)
        XCTAssertEqual(waitForEnd(run), 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("resuming the capture run"), run.stderr)
        XCTAssertTrue(run.stdout.contains("8 of 8 captured, 8 uploaded"), run.stdout + run.stderr.suffix(3000))
        let photos = try gallery.photos()
        XCTAssertEqual(photos.count, 8, "the remaining shots and no more")
        XCTAssertEqual(Set(photos.map(\.sha256)).count, 8)
        XCTAssertEqual(Set(try harness.history().filter(\.success).map(\.captureNumber)), Set(1...8))
        // The capture run is one session across the kill: one manifest of all eight.
        let manifests = try gallery.manifests()
        XCTAssertEqual(manifests.count, 1, run.stderr.suffix(3000).description)
        XCTAssertTrue((manifests.first?["session"] as? String ?? "").hasPrefix("capture-"), "\(manifests)")
        XCTAssertEqual((manifests.first?["photos"] as? [Any])?.count, 8)
        let again = try harness.relay("capture", "--resume")
        XCTAssertNotEqual(again.status, 0)
        XCTAssertTrue(again.stderr.contains("nothing to resume"), again.stderr)
    }

    // MARK: - Bad timing and cameras that cannot be fired

    func testAnIntervalUnderASecondIsRaisedWithAMessage() throws {
        let gallery = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "capture e2e")
        let sim = try CameraSimProcess(profile: "generic")
        defer { sim.stop() }
        for every in ["0", "-5s"] {
            let run = try harness.startCapture(sim.cameraURL, ["--every", every, "--count", "2"])
            XCTAssertEqual(waitForEnd(run), 0, run.stderr)
            XCTAssertTrue(run.stderr.contains("--every \(every) is under the 1 second minimum between shots; using 1s"), run.stderr)
            XCTAssertTrue(run.stdout.contains("2 of 2 captured, 2 uploaded"), run.stdout)
        }
        let history = try harness.history().compactMap(\.date).sorted()
        XCTAssertEqual(history.count, 4)
        XCTAssertGreaterThan(history[1].timeIntervalSince(history[0]), 0.5, "a second between the shots, not 0")
    }

    func testBadTimingIsRefusedNamingTheAcceptedForms() throws {
        let harness = try RelayHarness()
        let cases: [([String], String)] = [
            (["--every", "soon", "--count", "3"], "--every 'soon' is not a duration: give a number with a unit ms, s, m, h or d"),
            (["--every", "5x"], "--every '5x' is not a duration"),
            (["--count", "3"], "--every is required"),
            (["--every", "1s", "--count", "3", "--for", "1m"], "give one of --count, --until and --for"),
            (["--every", "1s", "--until", "7pm"], "--until '7pm' is not a time: give HH:MM"),
            (["--every", "1s", "--for", "-2m"], "--for '-2m' is not a duration"),
            (["--once", "--every", "1s"], "--once takes a single shot"),
        ]
        for (arguments, message) in cases {
            let result = try Subprocess.run(
                TestPaths.relayExecutable, ["capture", "--camera", "ptpip://127.0.0.1:9"] + arguments,
                environment: harness.environment)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        let nothing = try harness.relay("capture", "--resume")
        XCTAssertEqual(nothing.status, 2)
        XCTAssertTrue(nothing.stderr.contains("there is no capture run to resume"), nothing.stderr)
    }

    func testACameraThatCannotBeFiredIsRefusedWithItsNameAndTheReason() throws {
        let gallery = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "capture e2e")
        let sim = try CameraSimProcess(profile: "generic", arguments: ["--no-remote-capture"])
        defer { sim.stop() }
        let run = try harness.startCapture(sim.cameraURL, ["--once"])
        XCTAssertEqual(waitForEnd(run, timeout: 30), 5, run.stderr)
        XCTAssertTrue(run.stderr.contains("Generic PTP/IP (relay camera-sim) (serial"), run.stderr)
        XCTAssertTrue(run.stderr.contains("cannot be fired remotely: it lists no capture operation"), run.stderr)
    }
}
