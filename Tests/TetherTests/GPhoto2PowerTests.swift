import Foundation
import GPhoto2
import TestSupport
import XCTest

@testable import Tether

/// The libgphoto2 reader against the simulator over real sockets: the `batterylevel` widget and
/// `gp_camera_get_storageinfo`, as the battery drains and the card fills.
final class GPhoto2PowerTests: XCTestCase {
    func testBatteryAndCardThroughLibgphoto2() throws {
        let sim = try CameraSimProcess(
            profile: "generic",
            arguments: [
                "--initial-photos", "0", "--photo-size", "50k", "--battery", "30", "--battery-drain", "5",
                "--card-free", "10M", "--card-shots", "200",
            ])
        defer { sim.stop() }
        let camera = try GPhoto2Camera.open(sim.gphotoPort)
        defer { camera.close() }
        var power = GPhoto2Power()
        var now = 0.0
        XCTAssertEqual(
            try power.update(camera, now: now),
            [.battery(percent: 30), .card(freeBytes: 10_000_000 / 1024 * 1024, freeShots: 200)],
            "libgphoto2 reports the free space in whole KiB")
        XCTAssertEqual(try power.update(camera, now: now), [], "nothing due, nothing read")
        sim.shootByStdin(3)
        power.photoTaken()
        // The simulated clock moves past the interval; the camera is polled until the shots are
        // in and libgphoto2's own cache of the property (2 s, library.c "cachetime") has expired.
        var changes: [PowerChange] = []
        for _ in 0..<100 where !changes.contains(.battery(percent: 15)) {
            _ = try camera.waitForEvent(milliseconds: 100)
            Thread.sleep(forTimeInterval: 0.1)
            now += CameraPower.interval
            changes += try power.update(camera, now: now)
        }
        XCTAssertTrue(changes.contains(.battery(percent: 15)), "\(changes)")
        XCTAssertTrue(
            changes.contains { if case .card(_, let shots) = $0 { return (shots ?? 200) < 200 } else { return false } },
            "\(changes)")
    }
}
