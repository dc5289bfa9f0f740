import Foundation
import TestSupport
import XCTest

/// `relay run --camera gphoto2:PORT` and `relay capture` through libgphoto2, end to end: the real
/// relay executable opens the camera simulator with libgphoto2's PTP/IP port (the same ptp2
/// driver code a USB camera runs), and the photos reach the real gallery process. The USB
/// transport itself is not exercised: no USB camera is attached to these machines.
final class GPhoto2BackendTests: XCTestCase {
    /// A gallery, a relay installation with a config for it, and a simulator of `profile` that
    /// exports what it shoots. relay is started on ``gphoto2Port(_:)``, not on the PTP/IP address
    /// ``CameraRun/start(_:)`` uses.
    private func rig(profile: String, _ simArguments: [String]) throws -> CameraRun {
        try CameraRun(profile: profile, simArguments, note: "gphoto2 e2e")
    }

    /// libgphoto2's port string for the simulator: both PTP/IP channels on its port.
    private func gphoto2Port(_ rig: CameraRun) -> String { "gphoto2:" + rig.sim.gphotoPort }

    /// Waits until the gallery has `names` and checks each against the simulator's export.
    private func expectPhotos(
        _ names: [String], in rig: CameraRun, relay: Subprocess, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let arrived = try Subprocess.waitUntil(timeout: 60) { try rig.gallery.photos().count >= names.count || !relay.isRunning }
        let photos = try rig.gallery.photos()
        XCTAssertTrue(
            arrived, "\(photos.count) of \(names.count) photos arrived:\n\(relay.stderr.suffix(4000))\n\(rig.sim.log.suffix(2000))",
            file: file, line: line)
        XCTAssertEqual(photos.map(\.name).sorted(), names.sorted(), "each photo once\n\(relay.stderr.suffix(3000))", file: file, line: line)
        try rig.assertByteIdentical(file: file, line: line)
    }

    // MARK: - Live shots, each profile libgphoto2 tethers over PTP/IP

    func testGenericLiveShotsArriveOnceAndRAWIsSkipped() throws {
        try checkLiveShots(profile: "generic", names: ["DSC00003.JPG", "DSC00004.JPG", "DSC00005.JPG"], raw: "ARW")
    }

    func testCanonLiveShotsArriveOnceAndRAWIsSkipped() throws {
        try checkLiveShots(profile: "canon-eos", names: ["IMG_0003.JPG", "IMG_0004.JPG", "IMG_0005.JPG"], raw: "CR3")
    }

    func testCanonEOSMLiveShotsArriveOnceAndRAWIsSkipped() throws {
        try checkLiveShots(profile: "canon-eosm", names: ["IMG_0003.JPG", "IMG_0004.JPG", "IMG_0005.JPG"], raw: "CR3")
    }

    func testNikonLiveShotsArriveOnceAndRAWIsSkipped() throws {
        try checkLiveShots(profile: "nikon", names: ["DSC_0003.JPG", "DSC_0004.JPG", "DSC_0005.JPG"], raw: "NEF")
    }

    private func checkLiveShots(profile: String, names: [String], raw: String) throws {
        let rig = try rig(profile: profile, ["--initial-photos", "2", "--raw", "--photo-size", "150k", "--raw-size", "50k"])
        let relay = try rig.harness.startCameraRun(gphoto2Port(rig))
        rig.waitForLog(relay, "through libgphoto2")
        XCTAssertTrue(relay.stderr.contains("were already on the card"), relay.stderr)
        rig.sim.shootByStdin(3)
        try expectPhotos(names, in: rig, relay: relay)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
        XCTAssertEqual(try rig.gallery.uploadRequests().count, names.count, "nothing sent twice")
        let skipped = relay.stderr.split(separator: "\n").filter { $0.contains(".\(raw): RAW, kept on the card") }
        XCTAssertEqual(skipped.count, names.count, "each RAW companion is skipped once:\n\(relay.stderr)")
    }

    /// A capture to the camera's memory: libgphoto2 takes it out (and releases it) when it
    /// reports the event; relay gets it whole from there.
    func testCanonCaptureInCameraMemoryIsTakenAndReleased() throws {
        let rig = try rig(profile: "canon-eos", ["--initial-photos", "0", "--capture-to", "memory", "--verbose"])
        let relay = try rig.harness.startCameraRun(gphoto2Port(rig))
        rig.waitForLog(relay, "through libgphoto2")
        rig.sim.shootBySignal()
        let arrived = try Subprocess.waitUntil(timeout: 60) { try rig.gallery.photos().count >= 1 || !relay.isRunning }
        XCTAssertTrue(arrived, relay.stderr)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
        let photo = try XCTUnwrap(rig.gallery.photos().first)
        XCTAssertEqual(photo.sha256, SHA256.hex(try Data(contentsOf: rig.export.appendingPathComponent("IMG_0001.JPG"))))
        XCTAssertTrue(rig.sim.log.contains("TransferComplete"), "the capture is released in the camera: \(rig.sim.log)")
    }

    // MARK: - Faults

    /// The connection drops in the middle of a piece of the first photo: relay opens the camera
    /// again and resumes the photo from the pieces it has.
    func testDropMidDownloadResumesAndNothingIsLostOrDoubled() throws {
        let rig = try rig(profile: "generic", ["--initial-photos", "0", "--photo-size", "600k", "--drop-during-transfer", "3"])
        let relay = try rig.harness.startCameraRun(gphoto2Port(rig), ["--chunk-size", "64K"])
        rig.waitForLog(relay, "through libgphoto2")
        rig.sim.shootByStdin(2)
        try expectPhotos(["DSC00001.JPG", "DSC00002.JPG"], in: rig, relay: relay)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
        XCTAssertTrue(relay.stderr.contains("resuming DSC00001.JPG at "), "the cut photo resumes from its pieces: \(relay.stderr)")
        XCTAssertTrue(rig.sim.log.contains("drop") || rig.sim.log.contains("Drop"), rig.sim.log)
        let delivered = try rig.gallery.uploadRequests().filter { $0.statusCode.map { (200..<300).contains($0) } ?? false }
        XCTAssertEqual(delivered.count, 2, "each photo delivered once")
    }

    /// relay is killed (SIGKILL) and started again: what it had taken is not taken twice, and
    /// what was shot meanwhile is taken.
    func testSIGKILLAndRestartTakesNothingTwice() throws {
        let rig = try rig(profile: "generic", ["--initial-photos", "1", "--photo-size", "100k"])
        let first = try rig.harness.startCameraRun(gphoto2Port(rig))
        rig.waitForLog(first, "through libgphoto2")
        rig.sim.shootByStdin(2)
        try expectPhotos(["DSC00002.JPG", "DSC00003.JPG"], in: rig, relay: first)
        // Killed once both deliveries are recorded: a kill between the gallery's answer and that
        // record sends the photo again under the same Idempotency-Key (the chaos matrix counts
        // those), which is not what this test is about.
        rig.waitForLog(first, "uploaded DSC00002.JPG")
        rig.waitForLog(first, "uploaded DSC00003.JPG")
        _ = first.stop(signal: SIGKILL, timeout: 10)
        rig.sim.shootByStdin(2)
        let second = try rig.harness.startCameraRun(gphoto2Port(rig))
        rig.waitForLog(second, "through libgphoto2")
        try expectPhotos(["DSC00002.JPG", "DSC00003.JPG", "DSC00004.JPG", "DSC00005.JPG"], in: rig, relay: second)
        XCTAssertEqual(second.stop(signal: SIGTERM, timeout: 30), 0, second.stderr)
        XCTAssertFalse(second.stderr.contains("already on the card"), "the second run knows the camera: \(second.stderr)")
        XCTAssertEqual(try rig.gallery.uploadRequests().count, 4, "nothing sent twice")
    }

    // MARK: - Timed capture

    func testCaptureFiresThroughLibgphoto2AndUploadsEveryShot() throws {
        let rig = try rig(profile: "generic", ["--initial-photos", "1", "--photo-size", "60k"])
        let run = try rig.harness.startCapture(gphoto2Port(rig), ["--every", "1s", "--count", "3"])
        let status = run.wait(timeout: 60)
        if status == nil { _ = run.stop(signal: SIGKILL) }
        XCTAssertEqual(status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("3 of 3 captured, 3 uploaded"), run.stdout + run.stderr)
        XCTAssertEqual(try rig.gallery.photos().map(\.name).sorted(), ["DSC00002.JPG", "DSC00003.JPG", "DSC00004.JPG"])
        XCTAssertEqual(try rig.harness.history().filter(\.success).map(\.captureNumber).sorted(), [1, 2, 3])
    }

    /// The camera answers busy: once (fired on the second try), then three times (the shot failed).
    func testBusyTriggersAreAskedAgainAsOverWiFi() throws {
        let rig = try rig(profile: "generic", ["--initial-photos", "0", "--photo-size", "60k", "--capture-answers", "B.BBB."])
        let run = try rig.harness.startCapture(gphoto2Port(rig), ["--every", "1s", "--count", "3"])
        let status = run.wait(timeout: 60)
        if status == nil { _ = run.stop(signal: SIGKILL) }
        XCTAssertEqual(status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("shot 1 of 3: fired after 1 DeviceBusy answer(s)"), run.stderr)
        XCTAssertTrue(run.stderr.contains("shot 2 of 3 FAILED: the camera answered busy 3 times"), run.stderr)
        XCTAssertTrue(run.stdout.contains("2 of 3 captured, 2 uploaded, 1 failed"), run.stdout)
    }

    // MARK: - Addresses

    func testPortLibgphoto2DoesNotKnowEndsTheRunWithWhereToLook() throws {
        let harness = try RelayHarness()
        XCTAssertEqual(try harness.relay("config", "add", "--url", "http://127.0.0.1:9/upload").status, 0)
        let result = try harness.relay("run", "--camera", "gphoto2:nosuchport:1")
        XCTAssertEqual(result.status, 5, result.stderr)
        XCTAssertTrue(result.stderr.contains("gphoto2 --list-ports"), result.stderr)
    }

    func testMalformedUSBAddressIsAUsageError() throws {
        let harness = try RelayHarness()
        let result = try harness.relay("run", "--camera", "usb:1")
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("usb:BUS,DEV"), result.stderr)
        let listing = try harness.relay("run", "--camera", "usb", "--list-every", "5s")
        XCTAssertEqual(listing.status, 2, listing.stderr)
        XCTAssertTrue(listing.stderr.contains("libgphoto2 cameras take no --list-every"), listing.stderr)
    }
}
