import Foundation
import TestSupport
import XCTest

/// `relay run --camera` end to end, continued: finding cameras, refusing what is not one,
/// cameras that drop away, two at once, and stopping cleanly.
extension CameraTetherTests {

    func testDiscoverFindsExactlyTheTwoSimulatorsInARangeOfTwenty() throws {
        let harness = try RelayHarness()
        let canon = try CameraSimProcess(profile: "canon-eos", host: "127.0.0.7", port: 15740)
        defer { canon.stop() }
        let generic = try CameraSimProcess(profile: "generic", host: "127.0.0.13", port: 15740)
        defer { generic.stop() }
        let started = Date()
        let result = try harness.relay("discover", "--range", "127.0.0.1-127.0.0.20", "--identify", "--json")
        let seconds = Date().timeIntervalSince(started)
        XCTAssertEqual(result.status, 0, result.stderr)
        struct Found: Decodable, Equatable {
            var host: String
            var port: Int
            var serialNumber: String
        }
        let found = try JSONDecoder().decode([Found].self, from: Data(result.stdout.utf8))
        XCTAssertEqual(
            found,
            [
                Found(host: "127.0.0.7", port: 15740, serialNumber: "SIM0CANON0001"),
                Found(host: "127.0.0.13", port: 15740, serialNumber: "SIM0GENERIC01"),
            ])
        XCTAssertLessThan(seconds, 10, "discovery of 20 addresses took \(seconds) s")
        let table = try harness.relay("discover", "--range", "127.0.0.1-20", "--identify")
        XCTAssertTrue(table.stdout.contains("ptpip://127.0.0.7  Canon EOS R50"), table.stdout)
    }

    func testCameraAutoFindsTheCameraInTheRange() throws {
        let camera = try CameraRun(profile: "generic", ["--initial-photos", "0"], host: "127.0.0.9", port: 15740)
        let relay = try camera.harness.startCameraRun("auto", ["--range", "127.0.0.8-127.0.0.10"])
        camera.waitForLog(relay, "connected to")
        camera.sim.shootByStdin(1)
        try camera.waitForPhotos(1, relay: relay)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
    }

    func testCleanStopSendsTheCanonSequence() throws {
        let camera = try CameraRun(profile: "canon-eos", ["--initial-photos", "0", "--verbose"])
        let sim = camera.sim
        let relay = try camera.startConnected()
        // The session is running: relay has polled the camera's events at least once.
        XCTAssertTrue(Subprocess.waitUntil(timeout: 20) { sim.log.contains("Canon EOS GetEvent (0x9116)") }, sim.log)
        kill(relay.pid, SIGINT)
        XCTAssertEqual(relay.wait(timeout: 30), 0, relay.stderr)
        XCTAssertTrue(relay.stderr.contains("session closed"), relay.stderr)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 10) { sim.log.contains("session 1 ended") }, sim.log)
        let lines = sim.log.split(separator: "\n").filter { $0.contains(" tid ") }.suffix(4).map(String.init)
        XCTAssertEqual(lines.count, 4)
        XCTAssertTrue(lines[0].contains("Canon EOS GetEvent (0x9116)"), "drain first: \(lines)")
        XCTAssertTrue(lines[1].contains("Canon EOS SetRemoteMode (0x9114)(0)"), "\(lines)")
        XCTAssertTrue(lines[2].contains("Canon EOS SetEventMode (0x9115)(0)"), "\(lines)")
        XCTAssertTrue(lines[3].contains("CloseSession (0x1003)"), "\(lines)")
        XCTAssertTrue(sim.log.contains("session 1 ended: client closed"), sim.log)
    }

    func testAWrongAddressIsReportedAndRetriedUntilStopped() throws {
        let gallery = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "camera e2e")
        let port = try XCTUnwrap(ClosedPort.make())
        let relay = try harness.startCameraRun("ptpip://127.0.0.1:\(port)")
        relay.assertSays("connection refused")
        XCTAssertTrue(relay.stderr.contains("cannot reach the camera at 127.0.0.1:\(port)"), relay.stderr)
        XCTAssertTrue(relay.stderr.contains("trying again"), relay.stderr)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, "a camera that is not there yet is not a failure")
    }

    func testACameraBusyWithAnotherClientIsReportedInWords() throws {
        let camera = try CameraRun(profile: "canon-eos", ["--initial-photos", "0"])
        let second = try RelayHarness(sendingTo: camera.gallery, note: "camera e2e")
        let holder = try camera.startConnected()
        let relay = try second.startCameraRun(camera.sim.cameraURL)
        camera.waitForLog(relay, "refused the connection")
        XCTAssertTrue(relay.stderr.contains("the camera is busy with another client"), relay.stderr)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0)
        XCTAssertEqual(holder.stop(signal: SIGTERM, timeout: 30), 0)
    }

    func testACameraThatDropsAwayIsReconnectedAndTheRunGoesOn() throws {
        let camera = try CameraRun(profile: "nikon", ["--initial-photos", "0"])
        let relay = try camera.startConnected()
        camera.sim.shootByStdin(1)
        try camera.waitForPhotos(1, relay: relay)
        camera.sim.sleep(seconds: 3)
        // The camera goes while relay waits for an answer (an orderly close) or while it sends
        // the next poll (a reset): either way relay says so and reconnects.
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 60) {
                relay.stderr.contains("closed the connection") || relay.stderr.contains("connection reset by the camera")
            }, relay.stderr)
        camera.waitForLog(relay, "connection refused")
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 60) {
                relay.stderr.components(separatedBy: "connected to").count - 1 >= 2
            }, relay.stderr)
        camera.sim.shootByStdin(1)
        try camera.waitForPhotos(2, relay: relay)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
        XCTAssertEqual(try camera.gallery.photos().map(\.name).sorted(), ["DSC_0001.JPG", "DSC_0002.JPG"])
        XCTAssertEqual(try camera.gallery.uploadRequests().count, 2, "the photo taken before the drop is not taken again")
    }

    func testTwoCamerasAtOnceShareOneSpoolAndGallery() throws {
        let canon = try CameraRun(profile: "canon-eos", ["--initial-photos", "0"])
        let nikon = try CameraSimProcess(profile: "nikon", arguments: ["--initial-photos", "0"])
        defer { nikon.stop() }
        let relay = try canon.start(["--camera", nikon.cameraURL])
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 60) {
                relay.stderr.components(separatedBy: "connected to").count - 1 >= 2
            }, relay.stderr)
        canon.sim.shootByStdin(2)
        nikon.shootByStdin(2)
        try canon.waitForPhotos(4, relay: relay)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
        XCTAssertEqual(
            try canon.gallery.photos().map(\.name).sorted(), ["DSC_0001.JPG", "DSC_0002.JPG", "IMG_0001.JPG", "IMG_0002.JPG"])
    }

    func testBadCameraFlagsAreRefusedWithTheAcceptedForms() throws {
        let harness = try RelayHarness()
        let bad = try harness.relay("run", "--camera", "http://192.168.1.2")
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("ptpip://HOST[:PORT]"), bad.stderr)
        let noSource = try harness.relay("run")
        XCTAssertEqual(noSource.status, 2)
        XCTAssertTrue(noSource.stderr.contains("--camera") && noSource.stderr.contains("--folder"), noSource.stderr)
        let range = try harness.relay("run", "--camera", "auto", "--range", "192.168.1.300")
        XCTAssertEqual(range.status, 2)
        XCTAssertTrue(range.stderr.contains("--range"), range.stderr)
        let rawForFolder = try harness.relay("run", "--folder", harness.dropFolder.path, "--include-raw")
        XCTAssertEqual(rawForFolder.status, 2)
        XCTAssertTrue(rawForFolder.stderr.contains("--include-raw is for cameras"), rawForFolder.stderr)
    }
}
