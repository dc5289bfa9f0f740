import Foundation
import TestSupport
import XCTest

/// The run's events as other programs see them: `relay run --json` and `relay capture --json`
/// on stdout, systemd's notifications, and the service unit.
final class RunEventsOutputTests: XCTestCase {
    /// Each stdout line parsed as a JSON object.
    private func events(_ output: String, file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        try output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { text in
            let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
            return try XCTUnwrap(object, "not a JSON object: \(text)", file: file, line: line)
        }
    }

    func testRunJSONIsOneEventPerLineFromStartToStop() throws {
        let gallery = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "gallery")
        let relay = try harness.startRun(["--json"])
        defer { _ = relay.stop(signal: SIGKILL) }
        try harness.dropPhotos(3)
        try Data("raw".utf8).write(to: harness.dropFolder.appendingPathComponent("IMG_0009.CR3"))
        XCTAssertTrue(try Subprocess.waitUntil(timeout: 60) { try gallery.photos().count == 3 }, relay.stderr)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)

        XCTAssertTrue(relay.stdout.hasSuffix("\n"), "every event ends its line")
        let stream = try events(relay.stdout)
        let types = stream.compactMap { $0["type"] as? String }
        XCTAssertEqual(types.count, stream.count, "every event has a type")
        XCTAssertEqual(types.first, "run.started")
        XCTAssertEqual(types.last, "run.stopped")
        XCTAssertEqual(types.filter { $0 == "photo.spooled" }.count, 3)
        XCTAssertEqual(types.filter { $0 == "photo.skipped" }.count, 1)
        let delivered = stream.filter { $0["type"] as? String == "upload.settled" && $0["outcome"] as? String == "delivered" }
        XCTAssertEqual(Set(delivered.compactMap { $0["name"] as? String }), ["IMG_0001.JPG", "IMG_0002.JPG", "IMG_0003.JPG"])
        XCTAssertTrue(delivered.allSatisfy { $0["destination"] as? String == "gallery" && ($0["bytesSent"] as? Int ?? 0) > 0 })
        XCTAssertTrue(stream.contains { $0["type"] as? String == "destination.queue" && $0["queued"] as? Int == 0 })
        let stopped = try XCTUnwrap(stream.last)
        XCTAssertEqual(stopped["delivered"] as? Int, 3)
        XCTAssertEqual(stopped["left"] as? Int, 0)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        XCTAssertTrue(stream.allSatisfy { ($0["at"] as? String).flatMap(formatter.date(from:)) != nil }, "every event has its time")
        XCTAssertTrue(relay.stderr.contains("uploaded IMG_0001.JPG"), "the log still goes to stderr:\n\(relay.stderr)")
    }

    func testCaptureJSONHasTheShotsAndTheSummaryStaysOffStdout() throws {
        let gallery = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "")
        let sim = try CameraSimProcess(profile: "canon-eos", arguments: ["--photo-size", "60k"])
        defer { sim.stop() }
        let run = try harness.startCapture(sim.cameraURL, ["--every", "1s", "--count", "2", "--json"])
        XCTAssertEqual(run.wait(timeout: 90), 0, run.stderr)
        let stream = try events(run.stdout)
        let types = stream.compactMap { $0["type"] as? String }
        XCTAssertEqual(types.filter { $0 == "capture.fired" }.count, 2, types.description)
        XCTAssertEqual(stream.filter { $0["type"] as? String == "capture.captured" }.compactMap { $0["shot"] as? Int }, [1, 2])
        XCTAssertTrue(types.contains("camera.connected"))
        let last = try XCTUnwrap(stream.last { $0["type"] as? String == "capture.progress" })
        XCTAssertEqual(last["uploaded"] as? Int, 2)
        XCTAssertEqual(last["planned"] as? Int, 2)
        XCTAssertTrue(run.stderr.contains("2 of 2 captured, 2 uploaded"), run.stderr)
    }

    /// systemd's notification socket (`Type=notify`, `WatchdogSec=`), played by a Python datagram
    /// socket: READY once the run starts, watchdog pings and a status line while it runs,
    /// STOPPING on SIGTERM.
    func testSystemdHearsReadyWatchdogStatusAndStopping() throws {
        let gallery = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "")
        let socketPath = harness.root.appendingPathComponent("notify.sock").path
        let listener = try Subprocess(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [
                "-c",
                """
                import socket, sys
                s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
                s.bind(sys.argv[1])
                print("bound", flush=True)
                while True:
                    message = s.recv(4096).decode()
                    print(message.replace("\\n", " "), flush=True)
                    if message == "STOPPING=1":
                        break
                """, socketPath,
            ], environment: [:])
        defer { _ = listener.stop(signal: SIGKILL) }
        XCTAssertTrue(Subprocess.waitUntil(timeout: 10) { listener.stdout.contains("bound") }, listener.stderr)
        harness.environment["NOTIFY_SOCKET"] = socketPath
        harness.environment["WATCHDOG_USEC"] = "1000000"
        let relay = try harness.startRun()
        defer { _ = relay.stop(signal: SIGKILL) }
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 20) {
                listener.stdout.contains("READY=1") && listener.stdout.contains("WATCHDOG=1") && listener.stdout.contains("STATUS=queued")
            }, listener.stdout + relay.stderr)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
        XCTAssertNotNil(listener.wait(timeout: 10), "STOPPING=1 was not sent:\n\(listener.stdout)")
        let lines = listener.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.filter { $0 == "READY=1" }.count, 1)
        XCTAssertEqual(lines.last, "STOPPING=1")
    }

    /// `systemd-analyze verify` on scripts/relay.service, with its ExecStart pointed at the relay
    /// just built (verify checks that the program exists).
    func testTheServiceUnitVerifies() throws {
        let analyze = try XCTUnwrap(Subprocess.which("systemd-analyze"), "systemd-analyze is installed by scripts/install-deps.sh")
        let unit = try String(contentsOf: TestPaths.repositoryRoot.appendingPathComponent("scripts/relay.service"), encoding: .utf8)
        XCTAssertTrue(unit.contains("ExecStart=/usr/local/bin/relay run $RELAY_ARGS"))
        let folder = try TestPaths.makeTemporaryDirectory("relay-unit")
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent("relay.service")
        try unit.replacingOccurrences(of: "/usr/local/bin/relay", with: TestPaths.relayExecutable.path)
            .write(to: copy, atomically: true, encoding: .utf8)
        let result = try Subprocess.run(analyze, ["verify", copy.path], environment: ["PATH": "/usr/bin:/bin"], timeout: 60)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr.trimmingCharacters(in: .whitespacesAndNewlines), "", "no warnings about the unit")
    }
}
