import Foundation
import RelayCore
import Uploader
import XCTest

final class RequestBuilderTests: XCTestCase {
    private func item(_ path: String, name: String = "IMG_0007.JPG") -> DeliveryItem {
        DeliveryItem(
            filePath: path, name: name, key: "key-7", contentType: ContentType.of(fileName: name),
            template: PathTemplate.Values(
                name: name, capturedAt: Date(timeIntervalSince1970: 1_779_000_000),
                camera: "5501234", serial: "5501234", sequence: 7, run: "gala"))
    }

    func testMultipartCarriesTheNoteOnlyWhenNotBlankThenFieldsInNameOrder() throws {
        var config = RequestConfig(url: "https://g.example/up", note: "  Gala  ", options: ["fields": ["z": "1", "album": "live"]])
        var request = try RequestBuilder.request(for: config, item: item("/spool/abc.jpg"), environment: [:])
        XCTAssertEqual(
            request.body,
            .multipart(
                fields: [
                    FormField(name: "note", value: "Gala"), FormField(name: "album", value: "live"), FormField(name: "z", value: "1"),
                ],
                fileField: "file", fileName: "IMG_0007.JPG"))
        XCTAssertEqual(request.idempotencyKey, "key-7")
        XCTAssertEqual(request.method, "POST")
        XCTAssertEqual(request.filePath, "/spool/abc.jpg")

        config.note = "   "
        config.options["fileField"] = "photo"
        request = try RequestBuilder.request(for: config, item: item("/p"), environment: [:])
        XCTAssertEqual(
            request.body,
            .multipart(
                fields: [FormField(name: "album", value: "live"), FormField(name: "z", value: "1")], fileField: "photo",
                fileName: "IMG_0007.JPG"))
    }

    func testRawPutAndLimits() throws {
        let config = RequestConfig(
            verb: .PUT, url: "https://u.example/in.jpg", timeoutSeconds: 90, maxBytesPerSecond: 0, options: ["body": "raw"])
        let request = try RequestBuilder.request(for: config, item: item("/p"), environment: [:])
        XCTAssertEqual(request.body, .raw)
        XCTAssertEqual(request.method, "PUT")
        XCTAssertEqual(request.timeoutSeconds, 90)
        XCTAssertNil(request.maxBytesPerSecond, "0 means no limit")
    }

    func testHeadersExpandTheEnvironmentAndAnUnsetVariableIsNamed() throws {
        let config = RequestConfig(url: "https://g.example/up", headers: ["Authorization": "Bearer ${TOKEN}", "X-Team": "a"])
        let request = try RequestBuilder.request(for: config, item: item("/p"), environment: ["TOKEN": "t0k"])
        XCTAssertEqual(request.headers, [HTTPHeader(name: "Authorization", value: "Bearer t0k"), HTTPHeader(name: "X-Team", value: "a")])
        XCTAssertThrowsError(try RequestBuilder.request(for: config, item: item("/p"), environment: [:])) { error in
            XCTAssertEqual(error as? ConfigError, .unknownEnvironmentVariable(name: "TOKEN", header: "Authorization"))
        }
    }

    func testSummaryNeverShowsSecrets() {
        let config = RequestConfig(
            url: "https://g.example/up",
            headers: [
                "Authorization": "Bearer literal-secret", "X-Api-Key": "k", "X-Custom": "${FROM_ENV}", "X-Team": "blue",
            ])
        let summary = RequestBuilder.summary(for: config, item: item("/p"))
        XCTAssertTrue(summary.hasPrefix("POST https://g.example/up (multipart, file=IMG_0007.JPG)"), summary)
        XCTAssertTrue(summary.contains("Authorization: <redacted>"), summary)
        XCTAssertTrue(summary.contains("X-Api-Key: <redacted>"), summary)
        XCTAssertTrue(summary.contains("X-Custom: <redacted>"), summary)
        XCTAssertTrue(summary.contains("X-Team: blue"), summary)
        XCTAssertTrue(summary.contains("Idempotency-Key: key-7"), summary)
        XCTAssertFalse(summary.contains("literal-secret"), summary)
    }

    /// A URL with placeholders is filled per photo (REST galleries); the content type follows the file.
    func testURLTemplateAndContentType() throws {
        let config = RequestConfig(verb: .PUT, url: "https://g.example/api/{run}/{seq}-{name}", options: ["body": "raw"])
        let request = try RequestBuilder.request(for: config, item: item("/p", name: "IMG 7.CR3"), environment: [:])
        XCTAssertEqual(request.url, "https://g.example/api/gala/0007-IMG_7.CR3")
        XCTAssertEqual(request.contentType, "image/x-canon-cr3")
        let plain = try RequestBuilder.request(for: RequestConfig(url: "https://g.example/up?a=1"), item: item("/p"), environment: [:])
        XCTAssertEqual(plain.url, "https://g.example/up?a=1")
        XCTAssertEqual(plain.contentType, "image/jpeg")
    }
}
