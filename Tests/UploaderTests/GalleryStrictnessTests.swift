import Foundation
import TestSupport
import XCTest

/// The gallery must refuse what a careless client might send, or the upload tests prove little.
/// These requests are written by hand over a raw socket, byte for byte.
final class GalleryStrictnessTests: XCTestCase {
    private var gallery: GalleryProcess!

    override func setUpWithError() throws {
        gallery = try GalleryProcess()
    }

    override func tearDown() {
        gallery?.stop()
        if let gallery { try? FileManager.default.removeItem(at: gallery.directory) }
    }

    private let jpeg = JPEGFixture.bytes(count: 500, seed: 77)

    private func part(_ disposition: String, type: String?, data: Data) -> Data {
        var out = Data("--bnd\r\nContent-Disposition: \(disposition)\r\n".utf8)
        if let type { out.append(Data("Content-Type: \(type)\r\n".utf8)) }
        out.append(Data("\r\n".utf8))
        out.append(data)
        out.append(Data("\r\n".utf8))
        return out
    }

    private func post(_ body: Data, contentType: String = "multipart/form-data; boundary=bnd") throws -> RawHTTP.Response {
        try RawHTTP.send(
            host: gallery.host, port: gallery.port, method: "POST", path: "/upload",
            headers: ["Content-Type": contentType], body: body)
    }

    private func assertRejected(_ response: RawHTTP.Response, mentioning text: String, line: UInt = #line) {
        XCTAssertEqual(response.status, 400, line: line)
        let message = String(decoding: response.body, as: UTF8.self)
        XCTAssert(message.contains("\"error\"") && message.contains(text), message, line: line)
    }

    private var close: Data { Data("--bnd--\r\n".utf8) }

    func testAWellFormedHandWrittenUploadIsAccepted() throws {
        let body =
            part("form-data; name=\"note\"", type: nil, data: Data("hi".utf8))
            + part("form-data; name=\"photo\"; filename=\"hand.jpg\"", type: "image/jpeg", data: jpeg) + close
        let response = try post(body)
        XCTAssertEqual(response.status, 201, String(decoding: response.body, as: UTF8.self))
        let stored = try XCTUnwrap(try gallery.photos().first)
        XCTAssertEqual(stored.name, "hand.jpg")
        XCTAssertEqual(stored.sha256, SHA256.hex(jpeg))
        XCTAssertEqual(stored.fields, ["note": "hi"])
    }

    func testMissingBoundaryIsRejected() throws {
        let body = part("form-data; name=\"file\"; filename=\"a.jpg\"", type: "image/jpeg", data: jpeg) + close
        assertRejected(try post(body, contentType: "multipart/form-data"), mentioning: "boundary")
    }

    func testMissingFinalDelimiterIsRejected() throws {
        let body = part("form-data; name=\"file\"; filename=\"a.jpg\"", type: "image/jpeg", data: jpeg)
        assertRejected(try post(body), mentioning: "final delimiter")
    }

    func testPartWithoutANameIsRejected() throws {
        let body = part("form-data; filename=\"a.jpg\"", type: "image/jpeg", data: jpeg) + close
        assertRejected(try post(body), mentioning: "name")
        let noDisposition = Data("--bnd\r\nContent-Type: image/jpeg\r\n\r\n".utf8) + jpeg + Data("\r\n".utf8) + close
        assertRejected(try post(noDisposition), mentioning: "Content-Disposition")
    }

    func testFilePartMustBeAWholeJPEG() throws {
        let png = part("form-data; name=\"file\"; filename=\"a.png\"", type: "image/png", data: jpeg) + close
        assertRejected(try post(png), mentioning: "image/jpeg")
        let truncated = part("form-data; name=\"file\"; filename=\"a.jpg\"", type: "image/jpeg", data: jpeg.dropLast(1)) + close
        assertRejected(try post(truncated), mentioning: "whole JPEG")
        let noFile = part("form-data; name=\"note\"", type: nil, data: Data("x".utf8)) + close
        assertRejected(try post(noFile), mentioning: "no file part")
        XCTAssertEqual(try gallery.photos().count, 0)
    }

    func testChunkedBodiesAreReassembledAndMalformedChunksRejected() throws {
        let head = "PUT /upload/chunks.jpg HTTP/1.0\r\nHost: x\r\nContent-Type: image/jpeg\r\nTransfer-Encoding: chunked\r\n\r\n"
        var request = Data(head.utf8)
        for piece in [jpeg.prefix(100), jpeg.dropFirst(100)] {
            request.append(Data((String(piece.count, radix: 16) + "\r\n").utf8))
            request.append(piece)
            request.append(Data("\r\n".utf8))
        }
        request.append(Data("0\r\n\r\n".utf8))
        let accepted = try RawHTTP.exchange(host: gallery.host, port: gallery.port, request: request)
        XCTAssertEqual(accepted.status, 201, String(decoding: accepted.body, as: UTF8.self))
        XCTAssertEqual(try gallery.photos().first?.sha256, SHA256.hex(jpeg))

        let broken = Data((head + "zz\r\nabc\r\n0\r\n\r\n").utf8)
        let rejected = try RawHTTP.exchange(host: gallery.host, port: gallery.port, request: broken)
        XCTAssertEqual(rejected.status, 400)
    }

    func testOtherContentTypesAreUnsupported() throws {
        let response = try post(jpeg, contentType: "application/octet-stream")
        XCTAssertEqual(response.status, 415)
    }
}
