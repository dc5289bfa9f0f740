import Uploader
import XCTest

final class UploadPlanTests: XCTestCase {
    private func request(
        method: String = "POST", url: String = "https://gallery.example/upload",
        headers: [HTTPHeader] = [], body: UploadBody = .multipart(fields: [], fileField: "file", fileName: "IMG_0001.JPG")
    ) -> UploadRequest {
        UploadRequest(method: method, url: url, headers: headers, body: body, filePath: "/nonexistent", idempotencyKey: "key-1")
    }

    private func plan(_ request: UploadRequest) throws -> UploadPlan {
        try UploadPlan.make(request).get()
    }

    private func rejection(_ request: UploadRequest) -> UploadTransportError? {
        if case .failure(let error) = UploadPlan.make(request) { return error }
        return nil
    }

    func testMultipartCarriesFieldsAndASafeFileName() throws {
        let made = try plan(
            request(
                body: .multipart(
                    fields: [FormField(name: "note", value: "Hall B"), FormField(name: "event", value: "x")],
                    fileField: "file", fileName: "../My Photo.JPG")))
        XCTAssertEqual(made.method, "POST")
        XCTAssertEqual(
            made.body,
            .multipart(
                fields: [FormField(name: "note", value: "Hall B"), FormField(name: "event", value: "x")],
                fileField: "file", fileName: "My_Photo.JPG"))
    }

    /// A JSON question to an API (Immich's) is sent from memory with its type; no file is read.
    func testAnInlineBodyCarriesItsTypeAndReadsNoFile() throws {
        var json = request(method: "PUT", body: .inline(Array(#"{"ids":[]}"#.utf8)))
        json.contentType = "application/json"
        let made = try plan(json)
        XCTAssertEqual(made.body, .inline(Array(#"{"ids":[]}"#.utf8)))
        XCTAssertFalse(made.body.readsFile)
        XCTAssertTrue(made.headerLines.contains("Content-Type: application/json"), "\(made.headerLines)")
        XCTAssertEqual(try plan(request(method: "GET", body: .inline([1]))).body, UploadPlan.Body.none)
    }

    func testIdempotencyKeyIsAlwaysSentOnceAndExpectIsSuppressed() throws {
        let made = try plan(
            request(headers: [
                HTTPHeader(name: "Authorization", value: "Bearer abc"),
                HTTPHeader(name: "idempotency-key", value: "other"),
                HTTPHeader(name: "Expect", value: "100-continue"),
            ]))
        XCTAssertEqual(made.headerLines, ["Authorization: Bearer abc", "Idempotency-Key: key-1", "Expect:"])
    }

    func testRawBodyDefaultsToJPEGContentTypeUnlessGiven() throws {
        let plain = try plan(request(method: "put", body: .raw))
        XCTAssertEqual(plain.method, "PUT")
        XCTAssertEqual(plain.body, .raw)
        XCTAssert(plain.headerLines.contains("Content-Type: image/jpeg"))
        let given = try plan(
            request(method: "PUT", headers: [HTTPHeader(name: "Content-Type", value: "application/octet-stream")], body: .raw))
        XCTAssertEqual(given.headerLines.filter { $0.lowercased().hasPrefix("content-type") }, ["Content-Type: application/octet-stream"])
    }

    func testMultipartKeepsCurlsContentTypeWithItsBoundary() throws {
        let made = try plan(request(headers: [HTTPHeader(name: "Content-Type", value: "multipart/form-data")]))
        XCTAssertFalse(made.headerLines.contains { $0.lowercased().hasPrefix("content-type") })
    }

    func testOnlyPostPutAndPatchSendABody() throws {
        XCTAssertEqual(try plan(request(method: "GET")).body, .none)
        XCTAssertEqual(try plan(request(method: "DELETE", body: .raw)).body, .none)
        XCTAssertFalse(try plan(request(method: "GET", body: .raw)).headerLines.contains("Content-Type: image/jpeg"))
        XCTAssertEqual(try plan(request(method: "HEAD", body: .raw)).body, .none, "a probe's question")
        XCTAssertEqual(try plan(request(method: "PROPFIND", body: .raw)).body, .none, "allprop")
    }

    func testInvalidRequestsAreRefusedBeforeAnythingIsSent() {
        let bad = [
            request(method: "TRACE"),
            request(method: "PO ST"),
            request(url: "ftp://gallery.example/upload"),
            request(url: "gallery.example/upload"),
            request(url: "https://gallery.example/up load"),
            request(headers: [HTTPHeader(name: "X-Token", value: "a\r\nX-Injected: 1")]),
            request(headers: [HTTPHeader(name: "Bad Name", value: "v")]),
            request(headers: [HTTPHeader(name: "", value: "v")]),
            request(body: .multipart(fields: [FormField(name: "no\"te", value: "v")], fileField: "file", fileName: "a.jpg")),
            request(body: .multipart(fields: [], fileField: "", fileName: "a.jpg")),
        ]
        for candidate in bad {
            XCTAssertEqual(rejection(candidate)?.category, .invalidRequest, "\(candidate)")
        }
        var keyed = request()
        keyed.idempotencyKey = "k\n1"
        XCTAssertEqual(rejection(keyed)?.category, .invalidRequest)
    }
}
