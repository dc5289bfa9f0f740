import Foundation
import TestSupport
import XCTest

/// gphoto2 reads the simulated battery the way it reads a real body's: the standard BatteryLevel
/// on generic and nikon, Canon's BatteryPower steps from the EOS event stream, Sony's 0xD218.
extension GPhoto2InteropTests {
    func testGPhoto2ReadsTheBatteryLevelOfEveryFamily() throws {
        // 64 % is shown as such where the body reports percent; Canon reports the 50 % step.
        for (profile, shown) in [("generic", "64%"), ("nikon", "64%"), ("canon-eos", "50%"), ("sony", "64%")] {
            let sim = try CameraSimProcess(profile: profile, arguments: ["--battery", "64", "--initial-photos", "0"])
            defer { sim.stop() }
            let result = try gphoto2(sim, ["--get-config", "batterylevel"], in: try makeFolder("battery-\(profile)"))
            XCTAssertEqual(result.status, 0, "\(profile): \(result.stderr)")
            XCTAssertTrue(result.stdout.contains("Current: \(shown)"), "\(profile): \(result.stdout)")
        }
    }
}
