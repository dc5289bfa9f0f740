import Foundation
import TestSupport
import Uploader
import XCTest

/// Shared setup for tests that talk to a real gallery process: a scratch folder for photos,
/// galleries stopped and removed after each test.
class GalleryTestCase: XCTestCase {
    var scratch: URL!
    private var galleries: [GalleryProcess] = []

    override func setUpWithError() throws {
        scratch = try TestPaths.makeTemporaryDirectory("uploader")
    }

    override func tearDown() {
        for gallery in galleries {
            gallery.stop()
            try? FileManager.default.removeItem(at: gallery.directory)
        }
        galleries = []
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
    }

    func startGallery(_ arguments: [String] = []) throws -> GalleryProcess {
        let gallery = try GalleryProcess(arguments: arguments)
        galleries.append(gallery)
        return gallery
    }

    /// A synthetic JPEG of `size` bytes in the scratch folder.
    func makePhoto(_ name: String, size: Int = 20_000, seed: UInt64) throws -> (path: String, data: Data) {
        let url = scratch.appendingPathComponent(name)
        let data = try JPEGFixture.write(to: url, count: size, seed: seed)
        return (url.path, data)
    }

    func multipartRequest(
        _ gallery: GalleryProcess, path: String, fileName: String, key: String,
        fields: [FormField] = [], headers: [HTTPHeader] = []
    ) -> UploadRequest {
        UploadRequest(
            method: "POST", url: gallery.uploadURL, headers: headers,
            body: .multipart(fields: fields, fileField: "file", fileName: fileName),
            filePath: path, idempotencyKey: key, timeoutSeconds: 60)
    }

    /// The bytes the gallery wrote to disk for `photo`.
    func storedBytes(_ gallery: GalleryProcess, _ photo: GalleryPhoto) throws -> Data {
        try Data(contentsOf: gallery.photosDirectory.appendingPathComponent(photo.name))
    }

    func expectResponse(
        _ result: Result<UploadResponse, UploadTransportError>, file: StaticString = #filePath, line: UInt = #line
    ) throws -> UploadResponse {
        switch result {
        case .success(let response): return response
        case .failure(let error):
            XCTFail("expected an HTTP answer, got \(error)", file: file, line: line)
            throw error
        }
    }

    func expectTransportError(
        _ result: Result<UploadResponse, UploadTransportError>, file: StaticString = #filePath, line: UInt = #line
    ) throws -> UploadTransportError {
        switch result {
        case .failure(let error): return error
        case .success(let response):
            XCTFail("expected a transport error, got HTTP \(response.statusCode) \(response.bodySummary)", file: file, line: line)
            throw GalleryError.badAnswer("unexpected answer")
        }
    }
}
