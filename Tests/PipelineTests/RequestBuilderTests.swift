import Foundation
import Pipeline
import RelayCore
import Spool
import Uploader
import XCTest

final class RequestBuilderTests: XCTestCase {
    private let entry = SpoolEntry(
        id: "abc", sequence: 7, source: "folder:/x", cameraFileName: "IMG_0007.JPG", uploadName: "IMG_0007.JPG",
        bytes: 1234, capturedAt: Date(), spooledAt: Date(), idempotencyKey: "key-7")

    func testMultipartCarriesTheNoteOnlyWhenNotBlankThenFieldsInNameOrder() throws {
        var config = RequestConfig(url: "https://g.example/up", note: "  Gala  ", fields: ["z": "1", "album": "live"])
        var request = try RequestBuilder.request(for: config, entry: entry, filePath: "/spool/abc.jpg", environment: [:])
        XCTAssertEqual(request.body, .multipart(
            fields: [FormField(name: "note", value: "Gala"), FormField(name: "album", value: "live"), FormField(name: "z", value: "1")],
            fileField: "file", fileName: "IMG_0007.JPG"))
        XCTAssertEqual(request.idempotencyKey, "key-7")
        XCTAssertEqual(request.method, "POST")
        XCTAssertEqual(request.filePath, "/spool/abc.jpg")

        config.note = "   "
        config.fileField = "photo"
        request = try RequestBuilder.request(for: config, entry: entry, filePath: "/p", environment: [:])
        XCTAssertEqual(request.body, .multipart(
            fields: [FormField(name: "album", value: "live"), FormField(name: "z", value: "1")], fileField: "photo", fileName: "IMG_0007.JPG"))
    }

    func testRawPutAndLimits() throws {
        let config = RequestConfig(verb: .PUT, url: "https://u.example/in.jpg", body: .raw, timeoutSeconds: 90, maxBytesPerSecond: 0)
        let request = try RequestBuilder.request(for: config, entry: entry, filePath: "/p", environment: [:])
        XCTAssertEqual(request.body, .raw)
        XCTAssertEqual(request.method, "PUT")
        XCTAssertEqual(request.timeoutSeconds, 90)
        XCTAssertNil(request.maxBytesPerSecond, "0 means no limit")
    }

    func testHeadersExpandTheEnvironmentAndAnUnsetVariableIsNamed() throws {
        let config = RequestConfig(url: "https://g.example/up", headers: ["Authorization": "Bearer ${TOKEN}", "X-Team": "a"])
        let request = try RequestBuilder.request(for: config, entry: entry, filePath: "/p", environment: ["TOKEN": "t0k"])
        XCTAssertEqual(request.headers, [HTTPHeader(name: "Authorization", value: "Bearer t0k"), HTTPHeader(name: "X-Team", value: "a")])
        XCTAssertThrowsError(try RequestBuilder.request(for: config, entry: entry, filePath: "/p", environment: [:])) { error in
            XCTAssertEqual(error as? ConfigError, .unknownEnvironmentVariable(name: "TOKEN", header: "Authorization"))
        }
    }

    func testSummaryNeverShowsSecrets() {
        let config = RequestConfig(url: "https://g.example/up", headers: [
            "Authorization": "Bearer literal-secret", "X-Api-Key": "k", "X-Custom": "${FROM_ENV}", "X-Team": "blue",
        ])
        let summary = RequestBuilder.summary(for: config, entry: entry)
        XCTAssertTrue(summary.hasPrefix("POST https://g.example/up (multipart, file=IMG_0007.JPG)"), summary)
        XCTAssertTrue(summary.contains("Authorization: <redacted>"), summary)
        XCTAssertTrue(summary.contains("X-Api-Key: <redacted>"), summary)
        XCTAssertTrue(summary.contains("X-Custom: <redacted>"), summary)
        XCTAssertTrue(summary.contains("X-Team: blue"), summary)
        XCTAssertTrue(summary.contains("Idempotency-Key: key-7"), summary)
        XCTAssertFalse(summary.contains("literal-secret"), summary)
    }

    func testProgressLine() {
        var snapshot = RunStatistics.Snapshot()
        snapshot.queued = 3
        snapshot.uploading = 2
        snapshot.delivered = 40
        snapshot.failed = 1
        snapshot.bytesPerSecond = 2_500_000
        snapshot.lastShutterToGallery = 1.84
        XCTAssertEqual(ProgressLine.format(snapshot),
                       "queued 3 · uploading 2 · done 40 · failed 1 · 2.5 MB/s · last shutter→gallery 1.84s")
        snapshot.spoolFull = true
        XCTAssertTrue(ProgressLine.format(snapshot).hasSuffix("spool full, waiting"))
        snapshot.sourceStatus = ["Canon EOS R50 connected", "camera: reconnecting in 2s (attempt 3): connection refused"]
        XCTAssertTrue(ProgressLine.format(snapshot).hasSuffix(
            "spool full, waiting · Canon EOS R50 connected · camera: reconnecting in 2s (attempt 3): connection refused"))
    }
}
