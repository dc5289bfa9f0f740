import CameraSim
import XCTest

final class SimPairingTests: XCTestCase {
    func testRequireGUIDTakesSixteenBytesOfHex() throws {
        let options = try SimOptions.parse(["--profile", "nikon", "--require-guid", "00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff"])
        XCTAssertEqual(
            options.pairing.required, [0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF])
        XCTAssertNil(try SimOptions.parse(["--profile", "nikon"]).pairing.required, "without the flag any client is let in")
        XCTAssertThrowsError(try SimOptions.parse(["--profile", "nikon", "--require-guid", "0011"])) { error in
            XCTAssertTrue("\(error)".contains("--require-guid"), "\(error)")
        }
    }
}
