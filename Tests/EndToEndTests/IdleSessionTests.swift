import Foundation
import TestSupport
import XCTest

/// Issue 28: a body ends a session that sends no operation for a while (30 s on many bodies;
/// events it pushes on the event channel do not count). A body that only pushes events, with
/// nothing shot for longer than that, used to drop relay every 30 s; relay now sends a
/// GetDeviceInfo after 5 s without an operation (`--keep-alive`; here 1 s against a body that
/// drops a client silent for 2.5 s, so the test waits seconds, not half a minute).
final class IdleSessionTests: XCTestCase {
    func testASessionWithNothingShotIsKeptAlive() throws {
        // A body that pushes its events (generic) and the Z of the public record, pushing too.
        for profile in [["generic"], ["nikon-z-strict", "--z-events", "pushed"]] {
            try checkKeptAlive(profile: profile[0], extra: Array(profile.dropFirst()))
        }
    }

    /// Drops a client silent for 2.5 s; two keep-alives must pass without a drop, then a shot arrives.
    private func checkKeptAlive(profile: String, extra: [String]) throws {
        let camera = try CameraRun(profile: profile, ["--initial-photos", "0", "--idle-timeout", "2.5s", "--verbose"] + extra, note: "")
        let (gallery, sim) = (camera.gallery, camera.sim)
        let relay = try camera.start(["--keep-alive", "1s"])
        defer { _ = relay.stop(signal: SIGKILL, timeout: 5) }
        camera.waitForLog(relay, "connected to", timeout: 30)
        let atStart = sim.log.components(separatedBy: "GetDeviceInfo").count
        // Two keep-alives: longer than the body's idle limit with nothing else sent.
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 40) { sim.log.components(separatedBy: "GetDeviceInfo").count >= atStart + 2 }, sim.log)
        XCTAssertFalse(sim.log.contains("no operation for"), "\(profile): the body never dropped relay:\n\(sim.log)")
        sim.shootByStdin(1)
        XCTAssertTrue(try Subprocess.waitUntil(timeout: 30) { try gallery.photos().count == 1 }, relay.stderr)
        XCTAssertFalse(sim.log.contains("session 2 "), "\(profile): one session served it all:\n\(sim.log)")
        XCTAssertEqual(relay.stop(signal: SIGINT, timeout: 30), 0, relay.stderr)
    }
}
