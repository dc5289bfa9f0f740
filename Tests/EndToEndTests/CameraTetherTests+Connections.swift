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
        let gallery = try GalleryProcess()
        let harness = try harness(for: gallery)
        let sim = try CameraSimProcess(profile: "generic", arguments: ["--initial-photos", "0"], host: "127.0.0.9", port: 15740)
        defer { sim.stop() }
        let relay = try harness.startCameraRun("auto", ["--range", "127.0.0.8-127.0.0.10"])
        waitForLog(relay, "connected to")
        sim.shootByStdin(1)
        try waitForPhotos(gallery, count: 1, relay: relay, sim: sim)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
    }

    func testCleanStopSendsTheCanonSequence() throws {
        let gallery = try GalleryProcess()
        let harness = try harness(for: gallery)
        let sim = try CameraSimProcess(profile: "canon-eos", arguments: ["--initial-photos", "0", "--verbose"])
        defer { sim.stop() }
        let relay = try harness.startCameraRun(sim.cameraURL)
        waitForLog(relay, "connected to")
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
        let harness = try harness(for: gallery)
        let port = try XCTUnwrap(ClosedPort.make())
        let relay = try harness.startCameraRun("ptpip://127.0.0.1:\(port)")
        waitForLog(relay, "connection refused")
        XCTAssertTrue(relay.stderr.contains("cannot reach the camera at 127.0.0.1:\(port)"), relay.stderr)
        XCTAssertTrue(relay.stderr.contains("trying again"), relay.stderr)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, "a camera that is not there yet is not a failure")
    }

    func testACameraBusyWithAnotherClientIsReportedInWords() throws {
        let gallery = try GalleryProcess()
        let first = try harness(for: gallery)
        let second = try harness(for: gallery)
        let sim = try CameraSimProcess(profile: "canon-eos", arguments: ["--initial-photos", "0"])
        defer { sim.stop() }
        let holder = try first.startCameraRun(sim.cameraURL)
        waitForLog(holder, "connected to")
        let relay = try second.startCameraRun(sim.cameraURL)
        waitForLog(relay, "refused the connection")
        XCTAssertTrue(relay.stderr.contains("the camera is busy with another client"), relay.stderr)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0)
        XCTAssertEqual(holder.stop(signal: SIGTERM, timeout: 30), 0)
    }

    func testACameraThatDropsAwayIsReconnectedAndTheRunGoesOn() throws {
        let gallery = try GalleryProcess()
        let harness = try harness(for: gallery)
        let sim = try CameraSimProcess(profile: "nikon", arguments: ["--initial-photos", "0"])
        defer { sim.stop() }
        let relay = try harness.startCameraRun(sim.cameraURL)
        waitForLog(relay, "connected to")
        sim.shootByStdin(1)
        try waitForPhotos(gallery, count: 1, relay: relay, sim: sim)
        sim.sleep(seconds: 3)
        // The camera goes while relay waits for an answer (an orderly close) or while it sends
        // the next poll (a reset): either way relay says so and reconnects.
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 60) {
                relay.stderr.contains("closed the connection") || relay.stderr.contains("connection reset by the camera")
            }, relay.stderr)
        waitForLog(relay, "connection refused")
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 60) {
                relay.stderr.components(separatedBy: "connected to").count - 1 >= 2
            }, relay.stderr)
        sim.shootByStdin(1)
        try waitForPhotos(gallery, count: 2, relay: relay, sim: sim)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
        XCTAssertEqual(try gallery.photos().map(\.name).sorted(), ["DSC_0001.JPG", "DSC_0002.JPG"])
        XCTAssertEqual(try gallery.uploadRequests().count, 2, "the photo taken before the drop is not taken again")
    }

    func testTwoCamerasAtOnceShareOneSpoolAndGallery() throws {
        let gallery = try GalleryProcess()
        let harness = try harness(for: gallery)
        let canon = try CameraSimProcess(profile: "canon-eos", arguments: ["--initial-photos", "0"])
        defer { canon.stop() }
        let nikon = try CameraSimProcess(profile: "nikon", arguments: ["--initial-photos", "0"])
        defer { nikon.stop() }
        let relay = try harness.startCameraRun(canon.cameraURL, ["--camera", nikon.cameraURL])
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 60) {
                relay.stderr.components(separatedBy: "connected to").count - 1 >= 2
            }, relay.stderr)
        canon.shootByStdin(2)
        nikon.shootByStdin(2)
        try waitForPhotos(gallery, count: 4, relay: relay)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
        XCTAssertEqual(try gallery.photos().map(\.name).sorted(), ["DSC_0001.JPG", "DSC_0002.JPG", "IMG_0001.JPG", "IMG_0002.JPG"])
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
