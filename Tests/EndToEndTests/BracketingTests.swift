import Foundation
import TestSupport
import XCTest

/// Issue 29: `relay capture --bracket` against the simulator over real sockets: relay sets the
/// speed, sees it confirmed, fires, and every frame reaches the real gallery with the planned
/// exposure in its EXIF (read by exiftool). nikon: ExposureTime 0x500D as a D5100 lists it
/// (1/4000 to 30"), ExposureProgramMode 0x500E; canon-eos: Tv codes on 0xD102 as the recorded R50
/// allows them (30" to 1/4000), confirmed by its PropValueChanged record; sony: 0xD20D set with
/// SetControlDeviceA and fired with SetControlDeviceB's half and full press.
final class BracketingTests: XCTestCase {
    private func waitForEnd(_ run: Subprocess, file: StaticString = #filePath, line: UInt = #line) -> Int32? {
        let status = run.wait(timeout: 90)
        XCTAssertNotNil(status, "relay capture did not end:\n\(run.stderr.suffix(4000))", file: file, line: line)
        if status == nil { _ = run.stop(signal: SIGKILL) }
        return status
    }

    /// EXIF ExposureTime of each photo in the gallery, in the camera's file-name order (its
    /// shooting order), as exiftool reads it: one exiftool for all of them (a Perl started per
    /// photo was a second of each bracket's check), its table one line a file in the order given.
    private static func exposures(_ gallery: GalleryProcess) throws -> [String] {
        let photos = try gallery.photos().sorted { $0.name < $1.name }
        guard !photos.isEmpty else { return [] }
        guard let exiftool = Subprocess.which("exiftool") else {
            throw ExiftoolError(description: "exiftool (libimage-exiftool-perl) is a test dependency")
        }
        let files = photos.map { gallery.photosDirectory.appendingPathComponent($0.name).path }
        let read = try Subprocess.run(exiftool, ["-T", "-ExposureTime"] + files, timeout: 30)
        let lines = read.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        guard lines.count == files.count else {
            throw ExiftoolError(description: "not one line per photo from exiftool: \(read.stdout)\(read.stderr)")
        }
        return lines.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    private struct ExiftoolError: Error, CustomStringConvertible {
        var description: String
    }

    /// What one profile's bracket left, for the test's thread to check: relay's outputs, the
    /// exposures in the gallery, the simulator's log and the history's capture numbers.
    private struct BracketOutcome: Sendable {
        var status: Int32?
        var stdout: String
        var stderr: String
        var exposures: [String]
        var simLog: String
        var captureNumbers: [Int]
    }

    /// How a profile's log shows a speed set, its confirmation and a release.
    private struct Markers {
        var set: String
        var confirm: String
        var release: String

        static let nikon = Markers(
            set: "SetDevicePropValue (0x1016)(500d)", confirm: "GetDevicePropValue (0x1015)(500d)",
            release: "InitiateCapture (0x100E)")
        static let canon = Markers(
            set: "Canon EOS SetDevicePropValueEx (0x9110)", confirm: "Canon EOS GetEvent (0x9116)",
            release: "Canon EOS RemoteReleaseOn (0x9128)(2,0)")
        static let sony = Markers(
            set: "Sony SetControlDeviceA (0x9205)(d20d)", confirm: "GetDevicePropValue (0x1015)(d20d)",
            release: "Sony SetControlDeviceB (0x9207)(d2c2)")
        /// A Sony that gives its properties only in one 0x9209 reply, as real bodies do.
        static let sonyAllAtOnce = Markers(
            set: "Sony SetControlDeviceA (0x9205)(d20d)", confirm: "Sony GetAllExtDevicePropInfo (0x9209)",
            release: "Sony SetControlDeviceB (0x9207)(d2c2)")
        /// A Sony of protocol 2.00: the speed stepped to with SetControlDeviceB.
        static let sonyStepped = Markers(
            set: "Sony SetControlDeviceB (0x9207)(d20d)", confirm: "GetDevicePropValue (0x1015)(d20d)",
            release: "Sony SetControlDeviceB (0x9207)(d2c2)")
    }

    /// Each press of the shutter (its releases, busy ones included) comes after the frame's speed
    /// was set and then read back: never a frame at a speed not confirmed. Returns the presses.
    @discardableResult
    private func assertEachPressFollowsAConfirmedSpeed(
        _ log: String, _ markers: Markers = .nikon, file: StaticString = #filePath, line: UInt = #line
    ) -> Int {
        var speedSet = false
        var confirmed = false
        var inPress = false
        var presses = 0
        for entry in log.split(separator: "\n") {
            if entry.contains(markers.set) && entry.contains("→ OK") {
                (speedSet, confirmed, inPress) = (true, false, false)
            } else if entry.contains(markers.confirm) && speedSet {
                confirmed = true
            } else if entry.contains(markers.release) && !inPress {
                XCTAssertTrue(confirmed, "a release without a confirmed speed:\n\(log)", file: file, line: line)
                presses += 1
                inPress = true
            }
        }
        return presses
    }

    /// Six frames, one at a speed the body lacks, on each profile whose speed relay sets: every
    /// frame in the gallery, in order, with the planned (or substituted) EXIF exposure.
    func testASixFrameBracketWithASubstitutionOnEachProfile() throws {
        let cases: [(profile: String, extra: [String], markers: Markers, fastest: String)] = [
            ("nikon", [], .nikon, "1/4000"), ("canon-eos", [], .canon, "1/4000"), ("sony", [], .sony, "1/8000"),
            ("sony", ["--sdio-version", "200"], .sonyStepped, "1/8000"),
            ("sony", ["--sony-all-props", "on"], .sonyAllAtOnce, "1/8000"),
        ]
        // Each profile has a gallery, a simulator and a relay of its own: the five brackets are
        // shot at once, then checked one after the other.
        let outcomes = AtOnce.run(cases.count) { index in
            let gallery = try GalleryProcess()
            let harness = try RelayHarness(sendingTo: gallery, note: "bracketing e2e")
            let sim = try CameraSimProcess(
                profile: cases[index].profile, arguments: ["--initial-photos", "2", "--verbose"] + cases[index].extra)
            defer { sim.stop() }
            let run = try harness.startCapture(sim.cameraURL, ["--bracket", "1/16000,1/1000,1/250,1/60,1/15,1/4", "--json"])
            let status = run.wait(timeout: 90)
            if status == nil { _ = run.stop(signal: SIGKILL) }
            return BracketOutcome(
                status: status, stdout: run.stdout, stderr: run.stderr, exposures: try Self.exposures(gallery), simLog: sim.log,
                captureNumbers: try harness.history().map(\.captureNumber).sorted())
        }
        for ((profile, _, markers, fastest), outcome) in zip(cases, outcomes) {
            let run = try outcome.get()
            XCTAssertNotNil(run.status, "relay capture did not end:\n\(run.stderr.suffix(4000))")
            XCTAssertEqual(run.status, 0, "\(profile):\n\(run.stderr)")
            XCTAssertTrue(run.stderr.contains("complete: 6 of 6 exposures; 6 uploaded"), "\(profile):\n\(run.stderr)")
            XCTAssertEqual(run.exposures, [fastest, "1/1000", "1/250", "1/60", "1/15", "1/4"], profile)
            XCTAssertEqual(assertEachPressFollowsAConfirmedSpeed(run.simLog, markers), 6, "\(profile):\n\(run.simLog)")
            XCTAssertEqual(run.captureNumbers, [1, 2, 3, 4, 5, 6], profile)

            let events = run.stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            let substituted = events.filter { $0["type"] as? String == "capture.substituted" }
            XCTAssertEqual(substituted.map { "\($0["planned"] ?? "") → \($0["used"] ?? "")" }, ["1/16000 → \(fastest)"], profile)
            let frames = events.filter { $0["type"] as? String == "capture.frame" }
            XCTAssertEqual(
                frames.map { "\($0["set"] ?? "").\($0["frame"] ?? "") \($0["speed"] ?? "") \($0["outcome"] ?? "")" },
                [
                    "1.1 \(fastest) captured", "1.2 1/1000 captured", "1.3 1/250 captured", "1.4 1/60 captured",
                    "1.5 1/15 captured", "1.6 1/4 captured",
                ], profile)
        }
    }

    /// Each frame's set, frame and speed travel with its photo: form fields a config asks for
    /// with placeholders, the history, and the session manifest, so a gallery can group a set.
    func testEachFrameCarriesItsSetFrameAndExposure() throws {
        let gallery = try GalleryProcess()
        let harness = try RelayHarness(
            sendingTo: gallery, note: "",
            [
                "--field", "set={set}", "--field", "frame={frame}", "--field", "exposure={exposure}", "--field", "album=hdr",
                "--manifest-url", gallery.manifestURL,
            ])
        let sim = try CameraSimProcess(profile: "nikon", arguments: ["--initial-photos", "0"])
        defer { sim.stop() }
        let run = try harness.startCapture(sim.cameraURL, ["--bracket", "1/500,2", "--sets", "2"])
        XCTAssertEqual(waitForEnd(run), 0, run.stderr)
        let photos = try gallery.photos().sorted { $0.name < $1.name }
        XCTAssertEqual(
            photos.map {
                "\($0.fields["set"] ?? "") \($0.fields["frame"] ?? "") \($0.fields["exposure"] ?? "") \($0.fields["album"] ?? "")"
            },
            ["1 1 1/500 hdr", "1 2 2\" hdr", "2 1 1/500 hdr", "2 2 2\" hdr"])
        let history = try harness.history().filter(\.success).sorted { $0.captureNumber < $1.captureNumber }
        XCTAssertEqual(
            history.map { "\($0.captureNumber) \($0.bracket?.set ?? 0).\($0.bracket?.frame ?? 0) \($0.bracket?.exposure ?? "")" },
            [
                "1 1.1 1/500", "2 1.2 2\"", "3 2.1 1/500", "4 2.2 2\"",
            ])
        let manifest = try XCTUnwrap(try gallery.manifests().first, run.stderr)
        let listed = try XCTUnwrap(manifest["photos"] as? [[String: Any]])
        XCTAssertEqual(
            listed.compactMap {
                ($0["bracket"] as? [String: Any]).map { "\($0["set"] ?? "").\($0["frame"] ?? "") \($0["exposure"] ?? "")" }
            },
            ["1.1 1/500", "1.2 2\"", "2.1 1/500", "2.2 2\""])
    }

    func testACameraThatGoesAwayMidBracketPausesAndTheBracketCompletes() throws {
        let gallery = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "bracketing e2e")
        let sim = try CameraSimProcess(profile: "nikon", arguments: ["--initial-photos", "0", "--verbose"])
        defer { sim.stop() }
        let run = try harness.startCapture(sim.cameraURL, ["--bracket", "1/1000,1/500,1/250,1/125,1/60,1/30"])
        XCTAssertTrue(Subprocess.waitUntil(timeout: 60) { run.stderr.contains("set 1, frame 2 (1/500): captured") }, run.stderr)
        // At the next speed set (SetDevicePropValue), so that relay knows no frame was fired: a
        // sleep during a release would have it await that frame's photo 10 s before firing again.
        sim.sleep(seconds: 3, before: 0x1016)
        XCTAssertEqual(waitForEnd(run), 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("capture paused"), run.stderr)
        XCTAssertTrue(run.stderr.contains("capture resumes"), run.stderr)
        XCTAssertTrue(run.stdout.contains("complete: 6 of 6 exposures; 6 uploaded"), run.stdout + run.stderr)
        XCTAssertEqual(try Self.exposures(gallery), ["1/1000", "1/500", "1/250", "1/125", "1/60", "1/30"])
    }

    func testAModeWhereTheCameraPicksTheSpeedIsRefusedWithWhatToSetOnTheDial() throws {
        let gallery = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "bracketing e2e")
        let sim = try CameraSimProcess(profile: "nikon", arguments: ["--exposure-mode", "A", "--verbose"])
        defer { sim.stop() }
        let run = try harness.startCapture(sim.cameraURL, ["--bracket", "1/1000,1/250"])
        let status = waitForEnd(run)
        XCTAssertNotNil(status)
        XCTAssertNotEqual(status, 0)
        XCTAssertTrue(run.stderr.contains("is in A/Av mode, where the camera picks the shutter speed: turn its mode dial to M"), run.stderr)
        XCTAssertFalse(sim.log.contains("InitiateCapture"), "nothing fired:\n\(sim.log)")
        XCTAssertFalse(sim.log.contains("SetDevicePropValue"), sim.log)
    }

    func testDeviceBusyOnTheReleaseIsAskedAgain() throws {
        let gallery = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "bracketing e2e")
        let sim = try CameraSimProcess(profile: "nikon", arguments: ["--capture-answers", "BB", "--verbose"])
        defer { sim.stop() }
        let run = try harness.startCapture(sim.cameraURL, ["--bracket", "1/500,1/125,1/30"])
        XCTAssertEqual(waitForEnd(run), 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("complete: 3 of 3 exposures"), run.stdout + run.stderr)
        let releases = sim.log.split(separator: "\n").filter { $0.contains("InitiateCapture (0x100E)") }
        XCTAssertEqual(releases.filter { $0.contains("DeviceBusy") }.count, 2, sim.log)
        XCTAssertEqual(releases.count, 5, "two busy answers, then one release per frame")
        XCTAssertEqual(assertEachPressFollowsAConfirmedSpeed(sim.log), 3)
        XCTAssertEqual(try Self.exposures(gallery), ["1/500", "1/125", "1/30"])
    }

    /// Ctrl-C ends the run after the frame under way; --resume fires only the frames left, at
    /// their planned speeds, and the set is complete once.
    func testCtrlCStopsAfterTheFrameAndResumeFiresOnlyWhatIsLeft() throws {
        let gallery = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "bracketing e2e")
        // Frames slowed by the link (1 MB photos at 8 MB/s, an eighth of a second each), so that
        // Ctrl-C, sent as frame 2 is reported, lands with most of the 18 frames still to come.
        let sim = try CameraSimProcess(
            profile: "nikon", arguments: ["--initial-photos", "0", "--photo-size", "1M", "--rate-limit", "8M", "--verbose"])
        defer { sim.stop() }
        let plan = ["--bracket-range", "1/2000..1/15", "--frames", "3", "--ev", "1", "--sets", "2"]
        let planned = ["1/2000", "1/1000", "1/500", "1/250", "1/125", "1/60", "1/30", "1/15", "1/8"]
        let first = try harness.startCapture(sim.cameraURL, plan)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 60) { first.stderr.contains("set 1, frame 2 (1/1000): captured") }, first.stderr)
        XCTAssertTrue(first.stop(signal: SIGINT, timeout: 60) != 0, "stopped with frames left: exit 1\n\(first.stderr)")
        XCTAssertTrue(first.stderr.contains("stopping after the frame under way"), first.stderr)
        XCTAssertTrue(first.stdout.contains("relay capture --resume continues this run"), first.stdout)
        let stoppedAt = try XCTUnwrap(
            first.stdout.range(of: "stopped at set [0-9]+, frame [0-9]+", options: .regularExpression), first.stdout)
        let taken = try Self.exposures(gallery)
        XCTAssertEqual(taken, Array(planned.prefix(taken.count)), "\(first.stdout[stoppedAt])")
        XCTAssertLessThan(taken.count, planned.count * 2)

        let resumed = try Subprocess(TestPaths.relayExecutable, ["capture", "--resume"], environment: harness.environment)
        XCTAssertEqual(waitForEnd(resumed), 0, resumed.stderr)
        XCTAssertTrue(resumed.stdout.contains("complete: 18 of 18 exposures"), resumed.stdout + resumed.stderr)
        XCTAssertEqual(try Self.exposures(gallery), planned + planned, "each frame once, in plan order")
    }

    func testBadSpeedsAndADryRun() throws {
        let harness = try RelayHarness()
        let dry = try harness.relay("capture", "--bracket-range", "1/1000..1/4", "--frames", "5", "--ev", "1", "--dry-run")
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertTrue(dry.stdout.contains("bracketing: 2 set(s) of 5 frames, 10 exposures"), dry.stdout)
        XCTAssertTrue(dry.stdout.contains("set 2: 1/30  1/15  1/8  1/4  0.5\""), dry.stdout)
        XCTAssertTrue(dry.stdout.contains("estimated duration"), dry.stdout)
        let bad = try harness.relay("capture", "--camera", "ptpip://127.0.0.1", "--bracket", "1/250,quick")
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("'quick' is not a shutter speed: write it as 1/250, 0.5, 2\", 2s or 30s"), bad.stderr)
        let mixed = try harness.relay("capture", "--camera", "ptpip://127.0.0.1", "--bracket", "1/250", "--every", "5s")
        XCTAssertTrue(mixed.stderr.contains("a bracketing run fires frame after frame: leave out --every"), mixed.stderr)
        let usb = try harness.relay("capture", "--camera", "usb", "--bracket", "1/250")
        XCTAssertTrue(usb.stderr.contains("bracketing sets the shutter speed over PTP/IP"), usb.stderr)
    }
}
