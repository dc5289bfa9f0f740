import Uploader
import XCTest

/// Reading a PROPFIND's multistatus answer for the size of the one resource asked about (pure).
final class WebDAVMultistatusTests: XCTestCase {
    private func length(_ xml: String) -> Int64? {
        WebDAVMultistatus.contentLength(in: Array(xml.utf8))
    }

    /// Apache mod_dav's answer to an empty (allprop) PROPFIND with Depth: 0, as it sends it.
    func testApachesAnswer() {
        let apache = """
            <?xml version="1.0" encoding="utf-8"?>
            <D:multistatus xmlns:D="DAV:" xmlns:ns0="DAV:">
            <D:response xmlns:lp1="DAV:" xmlns:lp2="http://apache.org/dav/props/">
            <D:href>/in/IMG_0042.JPG</D:href>
            <D:propstat>
            <D:prop>
            <lp1:resourcetype/>
            <lp1:creationdate>2026-11-28T23:40:00Z</lp1:creationdate>
            <lp1:getcontentlength>300000</lp1:getcontentlength>
            <lp1:getlastmodified>Sat, 28 Nov 2026 23:40:00 GMT</lp1:getlastmodified>
            <lp1:getetag>"493e0-5f3a"</lp1:getetag>
            <lp2:executable>F</lp2:executable>
            </D:prop>
            <D:status>HTTP/1.1 200 OK</D:status>
            </D:propstat>
            </D:response>
            </D:multistatus>
            """
        XCTAssertEqual(length(apache), 300_000)
    }

    /// Nextcloud (sabre/dav) lists what it does not have under a 404 propstat, possibly first;
    /// a default namespace instead of a prefix reads the same.
    func testOnlyA200PropstatCounts() {
        let sabre = """
            <d:multistatus xmlns:d="DAV:" xmlns:s="http://sabredav.org/ns">
             <d:response><d:href>/remote.php/dav/files/anna/IMG_0042.JPG</d:href>
              <d:propstat><d:prop><d:getcontentlength>17</d:getcontentlength></d:prop>
               <d:status>HTTP/1.1 404 Not Found</d:status></d:propstat>
              <d:propstat><d:prop><d:getcontentlength> 1234 </d:getcontentlength></d:prop>
               <d:status>HTTP/1.1 200 OK</d:status></d:propstat>
             </d:response>
            </d:multistatus>
            """
        XCTAssertEqual(length(sabre), 1234)
        let plain = """
            <multistatus xmlns="DAV:"><response><href>/a</href><propstat><prop><getcontentlength>5</getcontentlength></prop>
            <status>HTTP/1.1 200 OK</status></propstat></response></multistatus>
            """
        XCTAssertEqual(length(plain), 5)
    }

    /// A folder at the name has no length; an element of another namespace named the same is
    /// not DAV's; a cut or foreign body is no answer.
    func testNoLengthIsNoAnswer() {
        let folder = """
            <D:multistatus xmlns:D="DAV:"><D:response><D:href>/in/IMG_0042.JPG/</D:href><D:propstat>
            <D:prop><D:resourcetype><D:collection/></D:resourcetype></D:prop><D:status>HTTP/1.1 200 OK</D:status>
            </D:propstat></D:response></D:multistatus>
            """
        XCTAssertNil(length(folder))
        let foreign = """
            <D:multistatus xmlns:D="DAV:" xmlns:x="urn:other"><D:response><D:propstat><D:prop>
            <x:getcontentlength>10</x:getcontentlength></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>
            </D:response></D:multistatus>
            """
        XCTAssertNil(length(foreign))
        XCTAssertNil(length("<D:multistatus xmlns:D=\"DAV:\"><D:response><D:propstat><D:prop><D:getcontentlength>300"))
        XCTAssertNil(length("<html><body>Bad gateway</body></html>"))
        XCTAssertNil(length(""))
        XCTAssertNil(length("<D:multistatus xmlns:D=\"DAV:\"><D:getcontentlength>-</D:getcontentlength></D:multistatus>"))
    }
}
