import Foundation
import Uploader
import XCTest

final class RetryAfterTests: XCTestCase {
    // Sun, 06 Nov 1994 08:49:37 GMT
    private let moment = Date(timeIntervalSince1970: 784_111_777)

    func testDelaySeconds() {
        XCTAssertEqual(RetryAfter.parse("120"), 120)
        XCTAssertEqual(RetryAfter.parse(" 0 "), 0)
        XCTAssertEqual(RetryAfter.parse("99999999999999999999"), 999_999_999_999)
    }

    func testHTTPDatesInAllThreeForms() {
        let before = moment.addingTimeInterval(-30)
        XCTAssertEqual(RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", now: before), 30)
        XCTAssertEqual(RetryAfter.parse("Sunday, 06-Nov-94 08:49:37 GMT", now: before), 30)
        XCTAssertEqual(RetryAfter.parse("Sun Nov  6 08:49:37 1994", now: before), 30)
    }

    func testDateInThePastMeansNow() {
        XCTAssertEqual(RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", now: moment.addingTimeInterval(3600)), 0)
    }

    func testGarbageIsIgnored() {
        for value in ["", "   ", "soon", "-5", "1.5", "12abc", "Sun, 32 Nov 1994 08:49:37 GMT", "0x10", "١٢"] {
            XCTAssertNil(RetryAfter.parse(value, now: moment), "'\(value)'")
        }
    }
}
