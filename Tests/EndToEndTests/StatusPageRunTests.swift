import Foundation
import TestSupport
import XCTest

/// `relay run --status` end to end: the camera simulator and the gallery over real sockets, the
/// real relay executable serving its status page, read by plain HTTP and by headless Chromium.
final class StatusPageRunTests: XCTestCase {
    func testThePageMetricsAndHealthOfASimulatedRun() throws {
        // A battery at 75 % (a step Canon bodies report as is) and a card with room for 900 shots.
        let camera = try CameraRun(
            profile: "canon-eos", ["--photo-size", "200k", "--battery", "75", "--card-shots", "900"], note: "status e2e")
        camera.harness.environment["RELAY_STATUS_TOKEN"] = "e2e-secret"
        camera.harness.environment["RELAY_WALL_TOKEN"] = "wall-secret"
        let port = try XCTUnwrap(ClosedPort.make())
        let relay = try camera.start(["--status", "\(port)"])
        defer { _ = relay.stop(signal: SIGKILL, timeout: 5) }
        let announced = Subprocess.waitUntil(timeout: 60) {
            relay.stderr.contains("status page at http://127.0.0.1:\(port)/") || !relay.isRunning
        }
        XCTAssertTrue(announced, "relay did not announce its status page:\n\(relay.stderr.suffix(3000))")
        camera.waitForLog(relay, "connected")

        camera.sim.shootByStdin(3)
        try camera.waitForPhotos(3, relay: relay)
        // The delivery is settled in relay just after the gallery has it: wait for the count.
        let counted = try Subprocess.waitUntil(timeout: 30) {
            try RawHTTP.get(host: "127.0.0.1", port: port, path: "/status.json?token=e2e-secret").body.range(
                of: Data(#""delivered":3"#.utf8)) != nil
        }
        XCTAssertTrue(counted)

        XCTAssertEqual(try RawHTTP.get(host: "127.0.0.1", port: port, path: "/metrics").status, 401)
        let metrics = try RawHTTP.send(
            host: "127.0.0.1", port: port, method: "GET", path: "/metrics",
            headers: ["Authorization": "Bearer e2e-secret"], body: Data())
        XCTAssertEqual(metrics.status, 200)
        let lines = String(decoding: metrics.body, as: UTF8.self).split(separator: "\n")
        XCTAssertTrue(
            lines.contains { $0.hasPrefix("relay_photos_delivered_total{destination=") && $0.hasSuffix("} 3") },
            String(decoding: metrics.body, as: UTF8.self))
        XCTAssertTrue(
            lines.contains { $0.hasPrefix("relay_camera_connected{model=\"Canon EOS R50 (relay camera-sim)\"") && $0.hasSuffix("} 1") })
        XCTAssertTrue(lines.contains("relay_upload_seconds_count 3"))
        XCTAssertTrue(
            lines.contains { $0.hasPrefix("relay_camera_battery_percent{") && $0.hasSuffix("} 75") },
            String(decoding: metrics.body, as: UTF8.self))
        XCTAssertEqual(try RawHTTP.get(host: "127.0.0.1", port: port, path: "/healthz").status, 200)
        XCTAssertTrue(
            try Subprocess.waitUntil(timeout: 30) {
                let wall = try RawHTTP.get(host: "127.0.0.1", port: port, path: "/wall.json?token=wall-secret")
                return String(decoding: wall.body, as: UTF8.self).components(separatedBy: #""id""#).count - 1 == 3
            }, "with no destination holding photos, the wall shows the delivered ones")

        let page = try HeadlessChromium.dumpDOM("http://127.0.0.1:\(port)/?token=e2e-secret")
        XCTAssertEqual(page.status, 0, page.stderr)
        XCTAssertTrue(page.stdout.contains("Canon EOS R50 (relay camera-sim)"), page.stdout)
        XCTAssertTrue(page.stdout.contains(#"<span class="ok">connected</span>"#), page.stdout)
        XCTAssertTrue(page.stdout.contains(#"<b id="taken">3</b>"#), page.stdout)
        XCTAssertTrue(page.stdout.contains(#"<b id="delivered">3</b>"#), page.stdout)
        XCTAssertTrue(page.stdout.contains("last shot IMG_"), page.stdout)
        XCTAssertTrue(page.stdout.contains("battery 75 %"), page.stdout)
        XCTAssertTrue(page.stdout.contains("card 89"), "the card's shots (900 less the photos taken):\n\(page.stdout)")

        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
        XCTAssertThrowsError(try RawHTTP.get(host: "127.0.0.1", port: port, path: "/healthz"), "the page outlived the run")
    }

    func testAPortInUseIsAUsageErrorNamingThePort() throws {
        let harness = try RelayHarness()
        let busy = try GalleryProcess()
        let run = try Subprocess.run(
            TestPaths.relayExecutable, ["run", "--folder", harness.dropFolder.path, "--status", "\(busy.port)"],
            environment: harness.environment, timeout: 60)
        XCTAssertEqual(run.status, 2, run.stderr)
        XCTAssertTrue(run.stderr.contains("port \(busy.port) is already in use"), run.stderr)
        let bad = try Subprocess.run(
            TestPaths.relayExecutable, ["run", "--folder", harness.dropFolder.path, "--status", "[::1:80"],
            environment: harness.environment, timeout: 60)
        XCTAssertEqual(bad.status, 2, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("brackets"), bad.stderr)
    }

    /// Issue 31: `--status 0.0.0.0:PORT` without RELAY_STATUS_TOKEN used to serve the page and
    /// every thumbnail to anyone on the venue Wi-Fi. relay now makes a token up, says the full
    /// address with it once, and asks for it everywhere but /healthz.
    func testAPageOnTheNetworkAsksForATokenOfTheRunsOwn() throws {
        let harness = try RelayHarness()
        XCTAssertEqual(try harness.relay("config", "add", "--url", "http://127.0.0.1:9/upload").status, 0)
        let port = try XCTUnwrap(ClosedPort.make())
        let relay = try Subprocess(
            TestPaths.relayExecutable, ["run", "--folder", harness.dropFolder.path, "--status", "0.0.0.0:\(port)"],
            environment: harness.environment)
        defer { _ = relay.stop(signal: SIGKILL, timeout: 5) }
        let pattern = try NSRegularExpression(pattern: "status page at http://[^ ]+:\(port)/\\?token=([0-9a-f]{32}) ")
        var token: String?
        _ = Subprocess.waitUntil(timeout: 60) {
            let text = relay.stderr
            if let match = pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
                let range = Range(match.range(at: 1), in: text)
            {
                token = String(text[range])
            }
            return token != nil || !relay.isRunning
        }
        let made = try XCTUnwrap(token, relay.stderr)
        XCTAssertEqual(relay.stderr.components(separatedBy: made).count - 1, 1, "the token is said once")
        XCTAssertEqual(try RawHTTP.get(host: "127.0.0.1", port: port, path: "/status.json").status, 401)
        XCTAssertEqual(try RawHTTP.get(host: "127.0.0.1", port: port, path: "/").status, 401)
        XCTAssertEqual(try RawHTTP.get(host: "127.0.0.1", port: port, path: "/status.json?token=\(made)").status, 200)
        // No token asked; 503 until the run has started (the page is up before it), then 200.
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) { (try? RawHTTP.get(host: "127.0.0.1", port: port, path: "/healthz").status) == 200 },
            relay.stderr)
        XCTAssertEqual(relay.stop(signal: SIGINT, timeout: 30), 0, relay.stderr)
    }
}
