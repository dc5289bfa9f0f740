import Foundation
import RelayCore
import Uploader
import XCTest

/// The WordPress destination's pure parts: the site's URL and REST root, slugs, the gallery
/// block's text, and refusals in the user's words.
final class WordPressRulesTests: XCTestCase {
    private func site(_ url: String) throws -> WordPressSite {
        try WordPressSite(config: RequestConfig(url: url, options: ["password": .string("${WP}")]))
    }

    func testTheSiteComesFromTheURL() throws {
        XCTAssertEqual(try site("wps://anna@photos.example").home, "https://photos.example/")
        XCTAssertEqual(try site("wp://anna@127.0.0.1:8080/blog").home, "http://127.0.0.1:8080/blog/")
        XCTAssertEqual(try site("wps://anna%40studio@photos.example/blog/").user, "anna@studio")
        for (url, words) in [
            ("wps://photos.example/", "name the WordPress user"),
            ("wps://anna@photos.example/?p=4", "without ?"),
            ("https://anna@photos.example/", "wps://USER@SITE/"),
        ] {
            XCTAssertThrowsError(try site(url), url) { XCTAssertTrue("\($0)".contains(words), "\($0)") }
        }
    }

    func testConfigsAreCheckedAndWarnedAbout() throws {
        func config(_ url: String, _ options: [String: ConfigValue]) -> RequestConfig { RequestConfig(url: url, options: options) }
        let password: [String: ConfigValue] = ["password": .string("${WP_APP_PASSWORD}")]
        XCTAssertNoThrow(try Destinations.validate(config("wps://anna@photos.example/", password.merging(["post": .string("42")]) { $1 })))
        for (options, words) in [
            ([:], "Application Password"),
            (password.merging(["post": .string("42"), "page": .string("7")]) { $1 }, "not both"),
            (password.merging(["post": .string("latest")]) { $1 }, "post's number"),
            (["password": .string("hunter2")], "${NAME} reference"),
        ] as [([String: ConfigValue], String)] {
            XCTAssertThrowsError(try Destinations.validate(config("wps://anna@photos.example/", options))) {
                XCTAssertTrue("\($0)".contains(words), "\($0)")
            }
        }
        XCTAssertEqual(Destinations.warnings(config("wps://anna@photos.example/", password)), [])
        XCTAssertTrue(Destinations.warnings(config("wp://anna@photos.example/", password)).first?.contains("in clear") ?? false)
    }

    func testTheRESTRootIsTheAnnouncedOneAndRoutesGoBelowIt() {
        let links = [
            "<https://photos.example/wp-json/wp/v2/pages/4>; rel=\"alternate\"; type=\"application/json\"",
            "<https://photos.example/wp-json/>; rel=\"https://api.w.org/\", <https://photos.example/?p=4>; rel=shortlink",
        ]
        XCTAssertEqual(WordPressSite.restRoot(fromLinks: links), "https://photos.example/wp-json/")
        XCTAssertNil(WordPressSite.restRoot(fromLinks: ["<https://photos.example/feed/>; rel=\"alternate\""]))
        XCTAssertEqual(
            WordPressSite.url(root: "https://photos.example/wp-json/", "wp/v2/media", query: [("slug", "relay-1"), ("title", "A & B")]),
            "https://photos.example/wp-json/wp/v2/media?slug=relay-1&title=A%20%26%20B")
        XCTAssertEqual(
            WordPressSite.url(root: "http://h/blog/index.php?rest_route=/", "wp/v2/media", query: [("slug", "relay-1")]),
            "http://h/blog/index.php?rest_route=/wp/v2/media&slug=relay-1")
    }

    func testSlugsAreLowerCaseWordsOfTheKey() {
        XCTAssertEqual(WordPressSite.slug(forKey: "0A1b2C3d"), "relay-0a1b2c3d")
        XCTAssertEqual(WordPressSite.slug(forKey: "abc.rendition:2048"), "relay-abc-rendition-2048")
    }

    private func image(_ id: Int, at seconds: TimeInterval, caption: String = "") -> WordPressGallery.Image {
        WordPressGallery.Image(
            id: id, url: "https://photos.example/wp-content/uploads/\(id).jpg", sizeSlug: "large", alt: "alt \(id)",
            caption: caption, capturedAt: Date(timeIntervalSince1970: seconds))
    }

    private func ids(_ content: String) -> [Int] {
        content.components(separatedBy: "class=\"wp-image-").dropFirst().compactMap { Int($0.prefix { $0.isNumber }) }
    }

    func testTheGalleryIsMadeOnceAtTheEndAndTheAuthorsTextIsKept() {
        let author = "<!-- wp:paragraph -->\n<p>Live from the gala</p>\n<!-- /wp:paragraph -->\n"
        let first = WordPressGallery.adding([image(10, at: 100, caption: "Anna & <Ben>")], to: author) { _ in nil }
        XCTAssertEqual(
            first,
            "<!-- wp:paragraph -->\n<p>Live from the gala</p>\n<!-- /wp:paragraph -->\n\n"
                + "<!-- wp:gallery {\"linkTo\":\"none\",\"className\":\"relay-live\"} -->\n"
                + "<figure class=\"wp-block-gallery has-nested-images columns-default is-cropped relay-live\">"
                + "<!-- wp:image {\"id\":10,\"sizeSlug\":\"large\",\"linkDestination\":\"none\"} -->\n"
                + "<figure class=\"wp-block-image size-large\"><img src=\"https://photos.example/wp-content/uploads/10.jpg\" "
                + "alt=\"alt 10\" class=\"wp-image-10\"/><figcaption class=\"wp-element-caption\">Anna &amp; &lt;Ben&gt;</figcaption>"
                + "</figure>\n<!-- /wp:image --></figure>\n<!-- /wp:gallery -->")
        XCTAssertTrue(WordPressGallery.contains(10, in: first))
        XCTAssertEqual(WordPressGallery.adding([image(10, at: 100)], to: first) { _ in nil }, first, "already there: unchanged")
    }

    func testPhotosGoNewestFirstInTheirPlace() {
        let taken: [Int: TimeInterval] = [1: 100, 2: 200, 3: 300, 4: 400]
        let takenAt = { (id: Int) in taken[id].map { Date(timeIntervalSince1970: $0) } }
        var content = WordPressGallery.adding([image(2, at: 200), image(4, at: 400)], to: "") { takenAt($0) }
        XCTAssertEqual(ids(content), [4, 2])
        content = WordPressGallery.adding([image(3, at: 300)], to: content) { takenAt($0) }
        XCTAssertEqual(ids(content), [4, 3, 2], "a late photo goes in its place")
        content = WordPressGallery.adding([image(1, at: 100)], to: content) { takenAt($0) }
        XCTAssertEqual(ids(content), [4, 3, 2, 1])
        content = WordPressGallery.adding([image(5, at: 50)], to: content) { _ in nil }
        XCTAssertEqual(ids(content).first, 5, "a photo goes before those whose time this writer does not know")
    }

    /// The block editor may write relay's gallery back with its attributes and classes in its
    /// own order: it is still the one gallery photos go into.
    func testTheGalleryIsFoundAfterTheEditorSavedItAgain() {
        let saved = WordPressGallery.adding([image(1, at: 100)], to: "") { _ in nil }
            .replacingOccurrences(
                of: "{\"linkTo\":\"none\",\"className\":\"relay-live\"}", with: "{\"className\":\"relay-live\",\"linkTo\":\"none\"}"
            )
            .replacingOccurrences(
                of: "wp-block-gallery has-nested-images columns-default is-cropped relay-live",
                with: "wp-block-gallery relay-live has-nested-images columns-default is-cropped")
        XCTAssertTrue(
            saved.contains("{\"className\":\"relay-live\",\"linkTo\":\"none\"}") && saved.contains("gallery relay-live has"), saved)
        let content = WordPressGallery.adding([image(2, at: 200)], to: saved) { $0 == 1 ? Date(timeIntervalSince1970: 100) : nil }
        XCTAssertEqual(ids(content), [2, 1])
        XCTAssertEqual(content.components(separatedBy: "<!-- wp:gallery").count - 1, 1, content)
    }

    func testAnotherGalleryInThePostIsNotTouched() {
        let theirs =
            "<!-- wp:gallery {\"linkTo\":\"none\"} -->\n<figure class=\"wp-block-gallery has-nested-images\"></figure>\n<!-- /wp:gallery -->"
        let content = WordPressGallery.adding([image(7, at: 1)], to: theirs) { _ in nil }
        XCTAssertTrue(content.hasPrefix(theirs + "\n\n<!-- wp:gallery {\"linkTo\":\"none\",\"className\":\"relay-live\"}"), content)
        XCTAssertEqual(ids(content), [7])
    }

    func testRefusalsSayWhatToFix() {
        let body = { (code: String, message: String) in Array(#"{"code":"\#(code)","message":"\#(message)","data":{"status":1}}"#.utf8) }
        let cases: [(Int, [UInt8], String)] = [
            (401, body("rest_cannot_create", "Sorry"), "Application Password of user 'anna'"),
            (403, body("rest_cannot_create", "Sorry"), "Author role"),
            (403, body("rest_cannot_edit", "Sorry"), "may not add photos to post 4"),
            (413, Array("<html>413</html>".utf8), "refused a 3.1 MB photo as too large (HTTP 413)"),
            (
                500, body("rest_upload_unknown_error", "The uploaded file exceeds the upload_max_filesize directive in php.ini."),
                "at least 3M"
            ),
            (404, body("rest_no_route", "No route"), "WordPress 4.7 or later"),
        ]
        for (status, answer, words) in cases {
            let reason = WordPressAnswer.refusal(status: status, body: answer, user: "anna", bytes: 3_100_000, post: "post 4")
            XCTAssertTrue(reason?.contains(words) ?? false, "\(status): \(reason ?? "nil")")
        }
        XCTAssertNil(WordPressAnswer.refusal(status: 503, body: [], user: "anna", bytes: 1, post: nil), "left to the delivery rules")
        XCTAssertNil(WordPressAnswer.refusal(status: 400, body: body("rest_invalid_param", "x"), user: "anna", bytes: 1, post: nil))
    }

    func testAnAttachmentIsReadWithOrWithoutItsSizes() throws {
        let sized =
            #"{"id":5,"source_url":"https://p/a.jpg","media_details":{"sizes":{"large":{"source_url":"https://p/a-1024x683.jpg"}}}}"#
        XCTAssertEqual(
            try JSONDecoder().decode(WordPressAnswer.Attachment.self, from: Data(sized.utf8)),
            WordPressAnswer.Attachment(id: 5, sourceURL: "https://p/a.jpg", largeURL: "https://p/a-1024x683.jpg"))
        let bare = #"{"id":6,"source_url":"https://p/b.jpg","media_details":[]}"#
        XCTAssertNil(try JSONDecoder().decode(WordPressAnswer.Attachment.self, from: Data(bare.utf8)).largeURL)
    }
}
