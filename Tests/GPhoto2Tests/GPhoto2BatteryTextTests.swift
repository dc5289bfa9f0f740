import GPhoto2
import XCTest

/// What libgphoto2's `batterylevel` widget says, as a percentage.
final class GPhoto2BatteryTextTests: XCTestCase {
    func testPercentagesAndWordsOfTheDrivers() {
        XCTAssertEqual(GPhoto2BatteryText.percent("75%"), 75)
        XCTAssertEqual(GPhoto2BatteryText.percent(" 5 % "), 5)
        XCTAssertEqual(GPhoto2BatteryText.percent("100"), 100)
        XCTAssertEqual(GPhoto2BatteryText.percent("Full"), 100)
        XCTAssertEqual(GPhoto2BatteryText.percent("Low"), GPhoto2BatteryText.lowPercent)
        XCTAssertLessThan(GPhoto2BatteryText.lowPercent, 20, "Low must be under the warning line")
        for unknown in ["Unknown value", "Unknown", "broken", "", "250%", "-1%"] {
            XCTAssertNil(GPhoto2BatteryText.percent(unknown), unknown)
        }
    }
}
