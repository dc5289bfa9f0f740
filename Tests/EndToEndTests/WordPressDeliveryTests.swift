import Foundation
import TestSupport
import XCTest

/// `relay run` from a hot folder into a real WordPress (`WordPressProcess`: Debian's WordPress,
/// MariaDB, PHP's server) and its live post, through a proxy that loses the first 201 after
/// WordPress stored the photo, as a venue's Wi-Fi does. Given the site, a user and an
/// Application Password, relay finds the REST API itself; every photo is one attachment with the
/// stamp's words, attached to the post and in its gallery once.
final class WordPressDeliveryTests: XCTestCase {
    func testPhotosReachTheLivePostOnceWithTheirWordsThoughAnAnswerIsLost() throws {
        let wordpress = try WordPressProcess(imageSizes: false)
        defer { wordpress.stop() }
        let proxy = try CutAnswerProxy(target: wordpress.port, status: 201, rewriteHost: true)
        defer { proxy.stop() }
        let harness = try RelayHarness()
        harness.environment["WP_APP_PASSWORD"] = wordpress.appPassword
        let added = try harness.relay(
            "config", "add", "--url", "wp://relay@127.0.0.1:\(proxy.port)/", "--password", "${WP_APP_PASSWORD}", "--post",
            "\(wordpress.site.postID)", "--note", "blog")
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertTrue(added.stderr.contains("warning: wp:// sends the Application Password in clear"), added.stderr)
        let stamp = try harness.relay("stamp", "set", "creator=Anna Lee", "title=Gala {name}", "caption=First dance — Photo: {creator}")
        XCTAssertEqual(stamp.status, 0, stamp.stderr)

        let relay = try harness.startRun(["--workers", "2"])
        defer { _ = relay.stop(signal: SIGKILL) }
        let photos = try harness.dropPhotos(4)
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 90) { ((try? harness.history()) ?? []).filter(\.success).count == 4 || !relay.isRunning },
            relay.stderr)
        XCTAssertEqual(relay.stop(), 0, relay.stderr)
        XCTAssertEqual(proxy.cuts, 1, proxy.output)

        let media = try wordpress.media()
        XCTAssertEqual(media.count, 4, "one attachment per photo, though an answer was lost")
        XCTAssertTrue(media.allSatisfy { $0.post == wordpress.site.postID }, "attached to the live post")
        for name in photos.keys {
            let answer = try wordpress.rest("GET", "wp/v2/media", query: ["search": name, "context": "edit"])
            let found = try XCTUnwrap(try JSONSerialization.jsonObject(with: answer.body) as? [[String: Any]]).first
            XCTAssertEqual((found?["title"] as? [String: Any])?["raw"] as? String, "Gala \(name)")
            XCTAssertEqual((found?["caption"] as? [String: Any])?["raw"] as? String, "First dance — Photo: Anna Lee")
        }
        let content = try wordpress.postContent()
        for item in media {
            XCTAssertEqual(content.components(separatedBy: "class=\"wp-image-\(item.id)\"").count - 1, 1, "in the gallery once")
        }
        let history = try harness.history()
        XCTAssertEqual(history.filter { $0.responseSummary?.hasPrefix("already there: attachment ") ?? false }.count, 1, "\(history)")
        XCTAssertEqual(history.filter { !$0.success }.count, 1, "the lost answer, retried")
        XCTAssertFalse(
            try String(contentsOf: harness.home.appendingPathComponent("configs.json"), encoding: .utf8).contains(wordpress.appPassword),
            "the password stays in the environment")
    }
}
