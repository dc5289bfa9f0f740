import Foundation
import RelayCore
import TestSupport
import Uploader
import XCTest

/// `WordPressDestination` against a real WordPress (`WordPressProcess`: Debian's WordPress 6.1,
/// MariaDB, PHP's server, on loopback): photos in the media library with their words, found by
/// slug after a lost answer (one attachment, not two), the live post's gallery written by four
/// workers at once, and each refusal a user can fix said as such. The site is read back with
/// `RawHTTP`, which shares no code with relay.
final class WordPressDestinationTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = try TestPaths.makeTemporaryDirectory("wordpress-destination")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func destination(
        _ wordpress: WordPressProcess, port: Int? = nil, password: String? = nil, post: Int? = nil, page: Int? = nil
    ) throws -> any Destination {
        var options: [String: ConfigValue] = ["password": .string("${WP_APP_PASSWORD}")]
        if let post { options["post"] = .string("\(post)") }
        if let page { options["page"] = .string("\(page)") }
        let config = RequestConfig(url: "wp://\(wordpress.user)@127.0.0.1:\(port ?? wordpress.port)/", options: options)
        try Destinations.validate(config)
        return try Destinations.make(
            config, environment: ["WP_APP_PASSWORD": password ?? wordpress.appPassword],
            policy: DeliveryPolicy(backoff: Backoff(base: 0.1, cap: 1)), cancellation: UploadCancellation())
    }

    private func photo(_ name: String, seed: UInt64, count: Int = 30_000) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try JPEGFixture.write(to: url, count: count, seed: seed)
        return url
    }

    private func item(_ file: URL, key: String, takenAt seconds: TimeInterval = 1_779_540_245, words: PhotoWords? = nil) -> DeliveryItem {
        var item = DeliveryItem(
            filePath: file.path, name: file.lastPathComponent, key: key, contentType: "image/jpeg",
            template: PathTemplate.Values(
                name: file.lastPathComponent, capturedAt: Date(timeIntervalSince1970: seconds), camera: "", serial: "",
                sequence: 1, run: "gala"))
        item.words = words
        return item
    }

    /// One attachment's fields as WordPress keeps them.
    private func attachment(_ wordpress: WordPressProcess, slug: String) throws -> [String: Any] {
        let answer = try wordpress.rest("GET", "wp/v2/media", query: ["slug": slug, "context": "edit"])
        let list = try XCTUnwrap(try JSONSerialization.jsonObject(with: answer.body) as? [[String: Any]])
        XCTAssertEqual(list.count, 1, "one attachment with the slug \(slug)")
        return try XCTUnwrap(list.first)
    }

    private func raw(_ field: Any?) -> String? { (field as? [String: Any])?["raw"] as? String }

    func testAPhotoArrivesUnderItsNameWithItsWordsAndSlug() throws {
        let wordpress = try WordPressProcess(imageSizes: false)
        defer { wordpress.stop() }
        let file = try photo("GALA_0001.jpg", seed: 1)
        let words = PhotoWords(title: "First dance", caption: "Anna & Ben — \"the\" first dance, 21:40", creator: "Anna Lee")
        let report = try destination(wordpress).deliverAskingFirst(
            item(file, key: "0123456789abcdef", words: words), growing: nil, attempt: 0, progress: nil)
        XCTAssertEqual(report.decision, .delivered, report.problem ?? "")
        XCTAssertEqual(report.statusCode, 201)

        let stored = try attachment(wordpress, slug: "relay-0123456789abcdef")
        XCTAssertEqual(raw(stored["title"]), "First dance")
        XCTAssertEqual(raw(stored["caption"]), words.caption)
        XCTAssertEqual(stored["alt_text"] as? String, words.caption)
        let url = try XCTUnwrap(stored["source_url"] as? String)
        XCTAssertTrue(url.hasSuffix("/GALA_0001.jpg"), url)
        XCTAssertTrue(report.answer?.contains(url) ?? false, report.answer ?? "")
        let name = try XCTUnwrap(url.components(separatedBy: "/wp-content/uploads/").last)
        XCTAssertEqual(
            SHA256.hex(try Data(contentsOf: wordpress.uploads.appendingPathComponent(name))), SHA256.hex(try Data(contentsOf: file)))
    }

    /// A proxy loses WordPress's 201 after it stored the photo: the re-send asks for the slug,
    /// finds the attachment, and sends nothing. One attachment, where a plain re-send made two.
    func testAnAnswerLostAfterTheUploadLeavesOneAttachment() throws {
        let wordpress = try WordPressProcess(imageSizes: false)
        defer { wordpress.stop() }
        let proxy = try CutAnswerProxy(target: wordpress.port, status: 201, rewriteHost: true)
        defer { proxy.stop() }
        let destination = try destination(wordpress, port: proxy.port, post: wordpress.site.postID)
        let sent = item(try photo("LOST_0001.jpg", seed: 2), key: "lost-answer-1")

        let first = destination.deliverAskingFirst(sent, growing: nil, attempt: 0, progress: nil)
        guard case .retry = first.decision else { return XCTFail("the lost answer is retried: \(first)") }
        XCTAssertTrue(proxy.cuts >= 1, proxy.output)
        let again = destination.deliverAskingFirst(sent, growing: nil, attempt: 1, progress: nil)
        XCTAssertEqual(again.decision, .delivered, again.problem ?? "")
        XCTAssertTrue(again.answer?.hasPrefix("already there: attachment ") ?? false, again.answer ?? "")
        XCTAssertEqual(again.bytesSent, 0, "nothing sent again")

        XCTAssertEqual(try wordpress.media().count, 1, "one attachment, not two")
        let stored = try attachment(wordpress, slug: "relay-lost-answer-1")
        let id = try XCTUnwrap(stored["id"] as? Int)
        XCTAssertEqual(stored["post"] as? Int, wordpress.site.postID, "attached to the live post")
        XCTAssertEqual(
            try wordpress.postContent().components(separatedBy: "class=\"wp-image-\(id)\"").count - 1, 1,
            "in the live gallery once")
    }

    /// Four workers (four destinations, as a run has) deliver 50 photos into one live post at
    /// once: every photo is in the gallery once, newest first, though they arrive out of order.
    func testFourWorkersPutEveryPhotoInTheLivePostNewestFirst() throws {
        let wordpress = try WordPressProcess(imageSizes: false)
        defer { wordpress.stop() }
        let original = try wordpress.postContent()
        // One destination per thread, as each worker owns its own: never shared between them.
        nonisolated(unsafe) let workers = try (0..<4).map { _ in try destination(wordpress, post: wordpress.site.postID) }
        let count = 50
        let items = try (0..<count).map { index in
            item(
                try photo(String(format: "RUN_%04d.jpg", index), seed: UInt64(100 + index), count: 12_000), key: "run-\(index)",
                takenAt: 1_779_540_000 + Double(index), words: PhotoWords(caption: "photo \(index)"))
        }
        let reports = LockedBox([DeliveryReport?](repeating: nil, count: count))
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            // Each worker takes every fourth photo, from the newest down, so they arrive out of order.
            for index in stride(from: count - 1 - worker, through: 0, by: -4) {
                // As a worker does: a retry (WordPress's own race making a month's folder answers
                // 500 to one of four first uploads) goes again, asking first.
                var attempt = 0
                var report = workers[worker].deliverAskingFirst(items[index], growing: nil, attempt: attempt, progress: nil)
                while case .retry = report.decision, attempt < 5 {
                    attempt += 1
                    report = workers[worker].deliverAskingFirst(items[index], growing: nil, attempt: attempt, progress: nil)
                }
                reports.withLockedValue { $0[index] = report }
            }
        }
        for (index, report) in reports.withLockedValue({ $0 }).enumerated() {
            XCTAssertEqual(report?.decision, .delivered, "photo \(index): \(report?.problem ?? "")")
        }
        let media = try wordpress.media()
        XCTAssertEqual(media.count, count)
        XCTAssertTrue(media.allSatisfy { $0.post == wordpress.site.postID }, "every photo attached to the post")
        let idBySlug = Dictionary(uniqueKeysWithValues: media.map { ($0.slug, $0.id) })
        let content = try wordpress.postContent()
        XCTAssertTrue(content.hasPrefix(original.trimmingCharacters(in: .whitespacesAndNewlines)), "the author's text is kept")
        let shown = content.components(separatedBy: "class=\"wp-image-").dropFirst().compactMap { Int($0.prefix { $0.isNumber }) }
        let expected = try (0..<count).reversed().map { try XCTUnwrap(idBySlug["relay-run-\($0)"]) }
        XCTAssertEqual(shown, expected, "every photo once, newest first")
        XCTAssertTrue(content.contains("<figcaption class=\"wp-element-caption\">photo 47</figcaption>"), content)
        let rendered = try wordpress.rest("GET", "wp/v2/posts/\(wordpress.site.postID)", query: ["_fields": "content"])
        XCTAssertTrue(String(decoding: rendered.body, as: UTF8.self).contains("wp-block-gallery"), "the gallery is what guests see")
    }

    /// What a user can fix is permanent and says how: a wrong Application Password, a post or a
    /// page that does not exist (nothing is uploaded for it), and an address that is not a
    /// WordPress site (relay's test gallery announces no REST API).
    func testRefusalsAUserCanFixArePermanentAndSayWhatToDo() throws {
        let wordpress = try WordPressProcess(imageSizes: false)
        defer { wordpress.stop() }
        let file = try photo("PASS_0001.jpg", seed: 3)
        let wrong = try destination(wordpress, password: "aaaa bbbb cccc dddd eeee ffff").deliverAskingFirst(
            item(file, key: "wrong-password"), growing: nil, attempt: 0, progress: nil)
        guard case .permanent(let reason) = wrong.decision else { return XCTFail("\(wrong)") }
        XCTAssertTrue(reason.contains("Application Password of user 'relay'") && reason.contains("relay retry"), reason)

        for (post, page, word) in [(9999, nil, "post 9999"), (nil, 9998, "page 9998")] as [(Int?, Int?, String)] {
            let report = try destination(wordpress, post: post, page: page).deliverAskingFirst(
                item(file, key: "no-post"), growing: nil, attempt: 0, progress: nil)
            guard case .permanent(let reason) = report.decision else { return XCTFail("\(report)") }
            XCTAssertTrue(reason.contains("has no \(word) (HTTP 404)"), reason)
        }
        XCTAssertEqual(try wordpress.media().count, 0, "nothing uploaded")

        let gallery = try GalleryProcess()
        defer { gallery.stop() }
        let config = RequestConfig(
            url: "wp://relay@127.0.0.1:\(gallery.port)/", options: ["password": .string("${WP_APP_PASSWORD}")])
        let notWordPress = try Destinations.make(
            config, environment: ["WP_APP_PASSWORD": "x"], policy: DeliveryPolicy(), cancellation: UploadCancellation())
        let report = notWordPress.deliverAskingFirst(item(file, key: "not-wordpress"), growing: nil, attempt: 0, progress: nil)
        guard case .permanent(let reason) = report.decision else { return XCTFail("\(report)") }
        XCTAssertTrue(reason.contains("without announcing a WordPress REST API"), reason)
        XCTAssertEqual(try gallery.photos().count, 0)
    }

    /// A site in a folder with plain permalinks (relay finds `/blog/index.php?rest_route=/`
    /// itself), PHP's upload_max_filesize at 1M and a web server limit of 5 MB. The limit of PHP
    /// holds only for multipart uploads; relay sends the bytes as the body, so a photo four times
    /// it is delivered. The web server's own limit (nginx's client_max_body_size; here the site's
    /// router) answers 413: permanent, said with the size.
    func testASiteInAFolderAndItsUploadLimits() throws {
        let wordpress = try WordPressProcess(
            uploadMax: "1M", permalinks: .plain, folder: "blog", imageSizes: false, maxBody: 5_000_000)
        defer { wordpress.stop() }
        let config = RequestConfig(url: "wp://relay@127.0.0.1:\(wordpress.port)/blog", options: ["password": .string("${WP_APP_PASSWORD}")])
        let destination = try Destinations.make(
            config, environment: ["WP_APP_PASSWORD": wordpress.appPassword], policy: DeliveryPolicy(),
            cancellation: UploadCancellation())
        let big = item(try photo("BIG_0001.jpg", seed: 5, count: 4_000_000), key: "big-photo")
        let delivered = destination.deliverAskingFirst(big, growing: nil, attempt: 0, progress: nil)
        XCTAssertEqual(delivered.decision, .delivered, delivered.problem ?? "")
        XCTAssertEqual(try wordpress.media(slug: "relay-big-photo").count, 1)

        let bigger = item(try photo("BIG_0002.jpg", seed: 6, count: 6_000_000), key: "bigger-photo")
        let report = destination.deliverAskingFirst(bigger, growing: nil, attempt: 0, progress: nil)
        guard case .permanent(let reason) = report.decision else { return XCTFail("\(report)") }
        XCTAssertTrue(reason.contains("refused a 6.0 MB photo as too large (HTTP 413)"), reason)
        XCTAssertTrue(reason.contains("client_max_body_size"), reason)
        XCTAssertEqual(try wordpress.media().count, 1, "nothing stored of the refused photo")
    }
}
