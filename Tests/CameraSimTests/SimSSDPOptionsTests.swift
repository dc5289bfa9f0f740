@testable import CameraSim
import SSDPWire
import XCTest

/// `--ssdp` and `--max-sessions`, and which profiles announce themselves.
final class SimSSDPOptionsTests: XCTestCase {
    func testSSDPAndSessionLimitParse() throws {
        let options = try SimOptions.parse(["--profile", "canon-eos", "--ssdp", "0", "--max-sessions", "1"])
        XCTAssertEqual(options.ssdpPort, 0)
        XCTAssertEqual(options.maxSessions, 1)
        let plain = try SimOptions.parse(["--profile", "canon-eos"])
        XCTAssertNil(plain.ssdpPort, "silent unless asked")
        XCTAssertNil(plain.maxSessions)
    }

    func testOnlyProfilesThatAnnounceTakeSSDP() {
        XCTAssertEqual(SimProfile.canonEOS.ssdpServiceType, .canonEOSUtility)
        XCTAssertNil(SimProfile.nikon.ssdpServiceType)
        XCTAssertThrowsError(try SimOptions.parse(["--profile", "nikon", "--ssdp", "1900"])) { error in
            XCTAssertTrue("\(error)".contains("--ssdp"), "\(error)")
        }
        XCTAssertThrowsError(try SimOptions.parse(["--profile", "canon-eos", "--max-sessions", "0"]))
    }
}
