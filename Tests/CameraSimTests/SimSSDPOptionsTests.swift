import SSDPWire
import XCTest

@testable import CameraSim

/// `--ssdp`, and which profiles announce themselves.
final class SimSSDPOptionsTests: XCTestCase {
    func testSSDPParses() throws {
        let options = try SimOptions.parse(["--profile", "canon-eos", "--ssdp", "0"])
        XCTAssertEqual(options.ssdpPort, 0)
        let plain = try SimOptions.parse(["--profile", "canon-eos"])
        XCTAssertNil(plain.ssdpPort, "silent unless asked")
    }

    func testOnlyProfilesThatAnnounceTakeSSDP() {
        XCTAssertEqual(SimProfile.canonEOS.ssdpServiceType, .canonEOSUtility)
        XCTAssertNil(SimProfile.nikon.ssdpServiceType)
        XCTAssertThrowsError(try SimOptions.parse(["--profile", "nikon", "--ssdp", "1900"])) { error in
            XCTAssertTrue("\(error)".contains("--ssdp"), "\(error)")
        }
    }
}
