import Foundation
import TestSupport
import XCTest

/// The proof of issue 20's battery part: a simulated camera whose battery drains to 15 % and
/// whose card fills under 100 shots during `relay run` gives exactly one low battery warning and
/// one low card warning, however far it goes on draining.
final class BatteryWarningTests: XCTestCase {
    func testStandardBodyDrainingTo15PercentWarnsOnce() throws {
        try checkOneWarningEach(profile: "generic", shots: 3, warned: "camera battery at 20 %: charge or swap it soon", json: true)
    }

    /// Canon reports steps: 30 % shows as 25 %, then Low (10 %) at 20 %.
    func testCanonDrainingTo15PercentWarnsOnceAtItsLowStep() throws {
        try checkOneWarningEach(profile: "canon-eos", shots: 3, warned: "camera battery at 10 %: charge or swap it soon")
    }

    /// `shots` photos take the battery from 30 % to 15 %, then as many more drain it further; the
    /// card holds 102 shots at start and each photo uses about five of them. With `json`, the
    /// `--json` stream on stdout is checked too.
    private func checkOneWarningEach(profile: String, shots: Int, warned: String, json: Bool = false) throws {
        let camera = try CameraRun(
            profile: profile,
            [
                "--initial-photos", "0", "--photo-size", "50k", "--battery", "30", "--battery-drain", "5",
                "--card-free", "1M", "--card-shots", "102",
            ],
            note: "battery")
        let relay = try camera.startConnected(json ? ["--json"] : [])
        defer { _ = relay.stop(signal: SIGTERM, timeout: 30) }
        for shot in 1...(2 * shots) {
            camera.sim.shootByStdin(1)
            try camera.waitForPhotos(shot, relay: relay, timeout: 60)
            if shot == shots {
                XCTAssertTrue(
                    Subprocess.waitUntil(timeout: 60) { relay.stderr.contains(warned) || !relay.isRunning },
                    "no battery warning at 15 %:\n\(relay.stderr.suffix(3000))")
            }
        }
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 60) { relay.stderr.contains("camera card nearly full") || !relay.isRunning },
            "no card warning:\n\(relay.stderr.suffix(3000))")
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
        if json {
            let events = relay.stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            XCTAssertEqual(events.filter { $0["type"] as? String == "camera.battery_low" }.count, 1, relay.stdout)
            XCTAssertEqual(events.filter { $0["type"] as? String == "camera.card_low" }.count, 1, relay.stdout)
            XCTAssertGreaterThanOrEqual(
                events.filter { $0["type"] as? String == "camera.battery" }.count, 4,
                "30, 25, 20, 15 … each reading a line")
        }
        let lines = relay.stderr.split(separator: "\n")
        XCTAssertEqual(
            lines.filter { $0.contains("charge or swap it soon") }.count, 1,
            "exactly one low battery warning:\n\(relay.stderr.suffix(3000))")
        XCTAssertEqual(lines.filter { $0.contains(warned) }.count, 1)
        XCTAssertEqual(
            lines.filter { $0.contains("camera card nearly full") }.count, 1,
            "exactly one low card warning:\n\(relay.stderr.suffix(3000))")
    }
}
