import Foundation
import TestSupport
import XCTest

/// `relay discover` and `--camera auto` against simulators over real sockets: finding a camera
/// must not cost it a PTP/IP session (pairing prompts, one-session bodies). The simulators log
/// every InitCommandRequest they receive, so "no session" is read from their logs.
final class DiscoveryTests: XCTestCase {
    private struct Found: Decodable, Equatable {
        var host: String
        var port: Int
        var foundBy: String
        var model: String
        var serialNumber: String
        var serviceType: String?
        var url: String
    }

    private func discover(_ harness: RelayHarness, _ arguments: String...) throws -> [Found] {
        let result = try Subprocess.run(
            TestPaths.relayExecutable, ["discover", "--json"] + arguments,
            environment: harness.environment, timeout: 60)
        XCTAssertEqual(result.status, 0, result.stderr)
        return try JSONDecoder().decode([Found].self, from: Data(result.stdout.utf8))
    }

    private func assertNoConnection(_ sim: CameraSimProcess, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(
            sim.log.contains("InitCommandRequest from"), "the camera was sent a PTP/IP handshake:\n\(sim.log)", file: file, line: line)
        XCTAssertFalse(sim.log.contains("session "), "the camera had a session:\n\(sim.log)", file: file, line: line)
    }

    func testAnAnnouncingCameraIsNamedFromItsDescriptionWithoutAnyConnection() throws {
        let harness = try RelayHarness()
        let sim = try CameraSimProcess(profile: "canon-eos", arguments: ["--ssdp", "0"], host: "127.0.0.31", port: 15740)
        defer { sim.stop() }
        let target = try XCTUnwrap(sim.ssdpTarget, sim.child.stdout)
        let found = try discover(harness, "--range", "127.0.0.31-127.0.0.32", "--ssdp-target", target)
        XCTAssertEqual(
            found,
            [
                Found(
                    host: "127.0.0.31", port: 15740, foundBy: "announced", model: "Canon EOS R50 (relay camera-sim)",
                    serialNumber: "SIM0CANON0001",
                    serviceType: "urn:schemas-canon-com:service:ICPO-WFTEOSSystemService:1",
                    url: "ptpip://127.0.0.31")
            ])
        XCTAssertTrue(sim.log.contains("ssdp: served the device description"), sim.log)
        assertNoConnection(sim)
        XCTAssertFalse(sim.log.contains("closed or sent something other"), "not even a TCP connect to its PTP/IP port:\n\(sim.log)")
        let table = try harness.relay("discover", "--range", "127.0.0.31", "--ssdp-target", target)
        XCTAssertTrue(table.stdout.contains("ptpip://127.0.0.31  Canon EOS R50 (relay camera-sim)  serial SIM0CANON0001"), table.stdout)
        assertNoConnection(sim)
    }

    func testASilentCameraIsFoundByATCPConnectAndNamedOnlyWithIdentify() throws {
        let harness = try RelayHarness()
        let sim = try CameraSimProcess(profile: "nikon", host: "127.0.0.33", port: 15740)
        defer { sim.stop() }
        // SSDP goes to a loopback port where nothing answers, so no real network takes part.
        let silent = ["--range", "127.0.0.33-127.0.0.34", "--ssdp-target", "127.0.0.33:9"]
        // The JSON list and the table cost the camera no connection: they look at once (each
        // waits out its SSDP window and its scan's retries), checked after both; --identify, which
        // does connect, comes after them.
        let environment = harness.environment
        let looks = AtOnce.run(2) { index in
            try Subprocess.run(
                TestPaths.relayExecutable, ["discover"] + (index == 0 ? ["--json"] : []) + silent, environment: environment, timeout: 60)
        }
        let found = try looks[0].get()
        XCTAssertEqual(found.status, 0, found.stderr)
        let listed = try JSONDecoder().decode([Found].self, from: Data(found.stdout.utf8))
        XCTAssertEqual(
            listed,
            [
                Found(
                    host: "127.0.0.33", port: 15740, foundBy: "listening", model: "", serialNumber: "",
                    serviceType: nil, url: "ptpip://127.0.0.33")
            ])
        XCTAssertTrue(sim.log.contains("closed or sent something other than InitCommandRequest"), "a plain TCP connect:\n\(sim.log)")
        assertNoConnection(sim)
        let table = try looks[1].get()
        XCTAssertTrue(table.stdout.contains("ptpip://127.0.0.33  PTP/IP camera, model unknown"), table.stdout)
        XCTAssertTrue(table.stdout.contains("relay discover --identify"), table.stdout)
        assertNoConnection(sim)

        let identified = try Subprocess.run(
            TestPaths.relayExecutable, ["discover", "--json", "--identify"] + silent,
            environment: harness.environment, timeout: 60)
        let named = try JSONDecoder().decode([Found].self, from: Data(identified.stdout.utf8))
        XCTAssertEqual(named.map(\.foundBy), ["identified"])
        XCTAssertEqual(named.map(\.serialNumber), ["SIM0NIKON0001"])
        XCTAssertTrue(sim.log.contains("InitCommandRequest from"), "--identify does open the handshake:\n\(sim.log)")
    }

    /// A body that allows one session per activation (a Sony in "Send to Computer") is found,
    /// announcing or not, and then still serves `relay run`.
    func testSingleSessionCamerasStillServeRelayRunAfterDiscover() throws {
        let gallery = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "")
        let announcing = try CameraSimProcess(
            profile: "canon-eos",
            arguments: [
                "--ssdp", "0", "--sessions-per-activation", "1", "--initial-photos", "0",
                "--verbose",
            ],
            host: "127.0.0.35", port: 15740)
        defer { announcing.stop() }
        let silent = try CameraSimProcess(
            profile: "nikon", arguments: ["--sessions-per-activation", "1", "--initial-photos", "0", "--verbose"],
            host: "127.0.0.36", port: 15740)
        defer { silent.stop() }
        let found = try discover(harness, "--range", "127.0.0.35-127.0.0.36", "--ssdp-target", try XCTUnwrap(announcing.ssdpTarget))
        XCTAssertEqual(found.map(\.foundBy), ["announced", "listening"])

        let relay = try harness.startCameraRun("ptpip://127.0.0.35", ["--camera", "ptpip://127.0.0.36"])
        // A shot before relay has looked at what is on the card would count as already there:
        // shoot once each camera has been polled after its first listing and card reading.
        func pastFirstListing(_ log: String) -> Bool {
            guard let storage = log.range(of: "GetStorageInfo") else { return false }
            return log[storage.upperBound...].contains("GetEvent")
        }
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 60) {
                announcing.log.contains("session 1 with") && silent.log.contains("session 1 with")
                    && pastFirstListing(announcing.log) && pastFirstListing(silent.log) || !relay.isRunning
            },
            "relay did not get the one session of each camera:\n\(relay.stderr)\n\(announcing.log.suffix(3000))\n\(silent.log.suffix(3000))"
        )
        announcing.shootByStdin(1)
        silent.shootByStdin(1)
        let arrived = try Subprocess.waitUntil(timeout: 60) { try gallery.photos().count >= 2 || !relay.isRunning }
        XCTAssertTrue(arrived, "relay stderr:\n\(relay.stderr.suffix(3000))")
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
        XCTAssertEqual(try gallery.photos().map(\.name).sorted(), ["DSC_0001.JPG", "IMG_0001.JPG"])

        // The one session is spent now: a handshake is refused, as the real body would.
        let after = try Subprocess.run(
            TestPaths.relayExecutable,
            [
                "discover", "--identify", "--range", "127.0.0.36",
                "--ssdp-target", "127.0.0.36:9",
            ],
            environment: harness.environment, timeout: 60)
        XCTAssertTrue(after.stdout.contains("a camera that refused relay"), after.stdout + after.stderr)
        XCTAssertTrue(silent.log.contains("served its sessions for this activation"), silent.log)
    }

    func testCameraAutoGoesBackToTheAddressItLastUsed() throws {
        let camera = try CameraRun(profile: "generic", ["--initial-photos", "0"], note: "", host: "127.0.0.37", port: 15740)
        let first = try camera.harness.startCameraRun("ptpip://127.0.0.37")
        camera.waitForLog(first, "connected to")
        XCTAssertEqual(first.stop(signal: SIGTERM, timeout: 30), 0, first.stderr)

        // The range no longer covers the camera: only the remembered address can find it.
        let relay = try camera.harness.startCameraRun("auto", ["--range", "127.0.0.38"])
        camera.waitForLog(relay, "connected to")
        XCTAssertTrue(relay.stderr.contains("where the camera was last"), relay.stderr)
        camera.sim.shootByStdin(1)
        try camera.waitForPhotos(1, relay: relay, timeout: 60)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
    }

    func testCameraAutoSpendsNoSessionWhileLooking() throws {
        let camera = try CameraRun(
            profile: "generic", ["--initial-photos", "0", "--sessions-per-activation", "1"], note: "", host: "127.0.0.39", port: 15740)
        let relay = try camera.harness.startCameraRun("auto", ["--range", "127.0.0.38-127.0.0.40"])
        camera.waitForLog(relay, "connected to")
        camera.sim.shootByStdin(1)
        try camera.waitForPhotos(1, relay: relay, timeout: 60)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
        let log = camera.sim.log
        XCTAssertEqual(log.components(separatedBy: "InitCommandRequest from").count - 1, 1, "one handshake, the tether's:\n\(log)")
    }

    /// Issue 28: `--identify` names a camera over the connection its scan opened. A body that
    /// serves one connection (here any bare connection spends its one session, as on a body that
    /// serves one connection at a time) used to have it spent by the scan's connect, and was then
    /// listed unnamed; it is named now, with one connection in all.
    func testIdentifyNamesABodyOverTheScansOwnConnection() throws {
        let harness = try RelayHarness()
        let sim = try CameraSimProcess(
            profile: "nikon",
            arguments: ["--sessions-per-activation", "1", "--probe-spends-activation", "on", "--initial-photos", "0", "--verbose"],
            host: "127.0.0.42", port: 15740)
        defer { sim.stop() }
        let found = try discover(harness, "--identify", "--range", "127.0.0.42", "--ssdp-target", "127.0.0.42:9")
        XCTAssertEqual(found.map(\.model), ["Z 6 (relay camera-sim)"], sim.log)
        XCTAssertEqual(found.map(\.foundBy), ["identified"])
        XCTAssertEqual(sim.log.components(separatedBy: "InitCommandRequest from").count - 1, 1, sim.log)
        XCTAssertFalse(sim.log.contains("closed or sent something other than InitCommandRequest"), "no bare connection:\n\(sim.log)")
    }

    /// Issue 28: a port that takes a connection but does not speak PTP/IP to `--identify` used
    /// to be listed with an empty model and no reason. It is now listed with why relay could not
    /// name it.
    func testACameraThatCannotBeIdentifiedIsListedWithTheReason() throws {
        let harness = try RelayHarness()
        let listener = """
            import socket, sys
            server = socket.socket()
            server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            server.bind(("127.0.0.41", 15740))
            server.listen(8)
            print("listening", flush=True)
            while True:
                connection, _ = server.accept()
                connection.close()
            """
        let peer = try Subprocess(try XCTUnwrap(Subprocess.which("python3")), ["-c", listener])
        defer { _ = peer.stop(signal: SIGKILL, timeout: 5) }
        XCTAssertTrue(Subprocess.waitUntil(timeout: 20) { peer.stdout.contains("listening") }, peer.stderr)
        let found = try Subprocess.run(
            TestPaths.relayExecutable, ["discover", "--identify", "--range", "127.0.0.41", "--ssdp-target", "127.0.0.41:9"],
            environment: harness.environment, timeout: 60)
        XCTAssertTrue(found.stdout.contains("ptpip://127.0.0.41"), found.stdout + found.stderr)
        XCTAssertTrue(
            found.stdout.contains("a PTP/IP camera relay could not identify: it took the connection but not"),
            found.stdout + found.stderr)
    }
}
