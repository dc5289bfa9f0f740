import Foundation
import TestSupport
import XCTest

/// The real WordPress the tests of issue 51 run against (`WordPressProcess`): a photo sent to its
/// REST media endpoint as relay would send it (the bytes as the body, the name in
/// Content-Disposition, an Application Password), found again by its slug, stored whole; a wrong
/// password turned away. No relay here: this proves the peer.
final class WordPressPeerTests: XCTestCase {
    func testAnUploadWithAnApplicationPasswordIsStoredAndFoundBySlug() throws {
        let wordpress = try WordPressProcess()
        defer { wordpress.stop() }
        XCTAssertTrue(wordpress.site.restRoot.hasSuffix("/wp-json/"), wordpress.site.restRoot)
        let folder = try TestPaths.makeTemporaryDirectory("wordpress-photo")
        defer { try? FileManager.default.removeItem(at: folder) }
        let photo = try CameraJPEG.write(to: folder.appendingPathComponent("LOST_0001.jpg"), .init(width: 640, height: 480))
        let headers = ["Content-Type": "image/jpeg", "Content-Disposition": "attachment; filename=\"LOST_0001.jpg\""]

        let stored = try wordpress.rest("POST", "wp/v2/media", query: ["slug": "relay-key-1"], headers: headers, body: photo)
        XCTAssertEqual(stored.status, 201, String(decoding: stored.body, as: UTF8.self))
        let found = try wordpress.media(slug: "relay-key-1")
        XCTAssertEqual(found.map(\.slug), ["relay-key-1"])
        XCTAssertEqual(found.first?.mimeType, "image/jpeg")
        let name = try XCTUnwrap(found.first?.sourceURL.components(separatedBy: "/wp-content/uploads/").last)
        XCTAssertTrue(name.hasSuffix("/LOST_0001.jpg"), name)
        XCTAssertEqual(SHA256.hex(try Data(contentsOf: wordpress.uploads.appendingPathComponent(name))), SHA256.hex(photo))
        XCTAssertEqual(try wordpress.media(slug: "relay-key-2").count, 0, "an unknown slug finds nothing")

        // WordPress 6.1 answers a wrong Application Password with the endpoint's own 401
        // (rest_cannot_create), not incorrect_password: see scripts/wordpress_site.py.
        let refused = try wordpress.rest(
            "POST", "wp/v2/media", headers: headers, body: photo,
            authorization: wordpress.authorization(password: "aaaa bbbb cccc dddd eeee ffff"))
        XCTAssertEqual(refused.status, 401, String(decoding: refused.body, as: UTF8.self))
        XCTAssertEqual(try wordpress.media().count, 1, "nothing stored for the refused upload")
    }

    /// Plain permalinks and a site in a folder: the REST root is `/blog/index.php?rest_route=/`,
    /// and routes and queries go below it.
    func testPlainPermalinksInAFolder() throws {
        let wordpress = try WordPressProcess(permalinks: .plain, folder: "blog", imageSizes: false)
        defer { wordpress.stop() }
        XCTAssertTrue(wordpress.site.restRoot.hasSuffix("/blog/index.php?rest_route=/"), wordpress.site.restRoot)
        let photo = JPEGFixture.bytes(count: 20_000, seed: 51)
        let stored = try wordpress.rest(
            "POST", "wp/v2/media", query: ["slug": "relay-key-3"],
            headers: ["Content-Type": "image/jpeg", "Content-Disposition": "attachment; filename=\"DSC_0003.jpg\""], body: photo)
        XCTAssertEqual(stored.status, 201, String(decoding: stored.body, as: UTF8.self))
        XCTAssertEqual(try wordpress.media(slug: "relay-key-3").map(\.slug), ["relay-key-3"])
    }
}
