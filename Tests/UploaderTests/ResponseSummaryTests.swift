import Uploader
import XCTest

final class ResponseSummaryTests: XCTestCase {
    func testLineBreaksAndControlsFoldIntoSingleSpaces() {
        XCTAssertEqual(ResponseSummary.make(Array("{\"error\":\r\n  \"bad\u{1B}[31m\"}\n".utf8)), "{\"error\": \"bad [31m\"}")
    }

    func testLongBodiesAreCutAtTheLimit() {
        let summary = ResponseSummary.make(Array(String(repeating: "a", count: 2000).utf8), limit: 500)
        XCTAssertEqual(summary, String(repeating: "a", count: 500) + "…")
    }

    func testInvalidUTF8AndCutCharactersDoNotGarble() {
        XCTAssertEqual(ResponseSummary.make([0x61, 0xFF, 0x62]), "a\u{FFFD}b")
        // "é" is two bytes; a limit of 2 cuts it in half.
        XCTAssertEqual(ResponseSummary.make(Array("aé".utf8), limit: 2), "a…")
        XCTAssertEqual(ResponseSummary.make([]), "")
    }
}
