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

    /// Apache's answer to a PUT into a folder that does not exist, as mod_dav sends it.
    func testAnHTMLPageIsSummarisedByItsTitleAndFirstParagraph() {
        let apache = """
            <!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">
            <html><head>
            <title>409 Conflict</title>
            </head><body>
            <h1>Conflict</h1>
            <p>Cannot PUT to /dav/wedding/IMG_0001.JPG
            because intermediate collections do not exist &amp; must be created first.</p>
            <hr>
            <address>Apache/2.4.62 (Debian) Server at 127.0.0.1 Port 8080</address>
            </body></html>
            """
        XCTAssertEqual(
            ResponseSummary.make(Array(apache.utf8)),
            "409 Conflict: Cannot PUT to /dav/wedding/IMG_0001.JPG because intermediate collections do not exist & must be created first.")
        XCTAssertEqual(ResponseSummary.make(Array("<html><body><h1>Bad gateway</h1>\n<hr>nginx</body></html>".utf8)), "Bad gateway nginx")
        XCTAssertEqual(ResponseSummary.make(Array("<b>not a page</b>".utf8)), "<b>not a page</b>", "a fragment is not summarised")
    }
}
