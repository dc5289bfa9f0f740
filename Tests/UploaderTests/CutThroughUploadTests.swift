import Foundation
import RelayCore
import Spool
import TestSupport
import Uploader
import XCTest

/// Uploads that start while the photo is still being written into the spool (cut-through),
/// against the real gallery: the upload is on the wire before the download ends, the gallery
/// stores exactly the photo, and an upload whose download fails never completes its body.
final class CutThroughUploadTests: GalleryTestCase {
    private var spoolFolder: URL { scratch.appendingPathComponent("spool") }

    /// A photo begun in the spool, offered, and claimed as an idle worker does.
    private func growingPhoto(_ spool: Spool, name: String, size: Int) throws -> (IncomingPhoto, GrowingPhoto) {
        let incoming = try spool.beginIngest(
            PhotoIdentity(source: "test", fileName: name, bytes: Int64(size), capturedAt: Date(), uniqueKey: name))
        spool.offer(incoming)
        guard case .growing(let photo) = spool.claimNextWork(cutThrough: true) else {
            XCTFail("the offer was not handed out")
            throw CancellationError()
        }
        return (incoming, photo)
    }

    /// Runs `perform` on its own thread, as a worker does.
    private func startUpload(_ request: UploadRequest, growing: GrowingPhoto) -> OutcomeBox {
        let outcome = OutcomeBox()
        Thread {
            do throws(UploadTransportError) {
                outcome.set(try HTTPUploadClient().perform(request, growing: growing))
            } catch {
                outcome.set(.failure(error))
            }
        }.start()
        return outcome
    }

    private func append(_ incoming: IncomingPhoto, _ data: Data, _ range: Range<Int>) throws {
        try incoming.append([UInt8](data[range]))
    }

    func testTheUploadRunsDuringTheDownloadAndTheGalleryStoresExactlyThePhoto() throws {
        let gallery = try startGallery()
        let photo = try makePhoto("source.jpg", size: 300_000, seed: 31)
        let spool = try Spool.gallery(directory: spoolFolder)
        for body in [UploadBody.multipart(fields: [], fileField: "file", fileName: "IMG_0001.JPG"), .raw] {
            let name = body == .raw ? "IMG_0002.JPG" : "IMG_0001.JPG"
            let (incoming, growing) = try growingPhoto(spool, name: name, size: photo.data.count)
            let request = UploadRequest(
                method: body == .raw ? "PUT" : "POST", url: gallery.uploadURL + (body == .raw ? "/" + name : ""),
                body: body, filePath: growing.url.path, idempotencyKey: growing.entry.idempotencyKey, timeoutSeconds: 60)
            let outcome = startUpload(request, growing: growing)
            try append(incoming, photo.data, 0..<100_000)
            let started = try Subprocess.waitUntil(timeout: 30) {
                try gallery.uploadRequests().contains { $0.status == "pending" && $0.idempotencyKey == growing.entry.id }
            }
            XCTAssert(started, "the upload did not start while the photo was a third written")
            try append(incoming, photo.data, 100_000..<photo.data.count)
            // The gallery has all but the photo's last byte (the moment the upload could have ended), and still no answer.
            let arrived = try Subprocess.waitUntil(timeout: 30) {
                try gallery.uploadRequests().contains {
                    ($0.receivedBytes ?? 0) >= photo.data.count - 1 && $0.idempotencyKey == growing.entry.id
                }
            }
            XCTAssert(arrived, "the gallery never had all but the last byte")
            XCTAssertNil(outcome.get(), "nothing can finish before the photo is committed")
            let entry = try spool.commit(incoming)
            XCTAssertEqual(growing.ended, .committed(entry))
            XCTAssert(Subprocess.waitUntil(timeout: 30) { outcome.get() != nil })
            let response = try expectResponse(try XCTUnwrap(outcome.get()))
            XCTAssertEqual(response.statusCode, 201, response.bodySummary)
            let stored = try XCTUnwrap(try gallery.photos().first { $0.name == name })
            XCTAssertEqual(try storedBytes(gallery, stored), photo.data)
            XCTAssertEqual(stored.idempotencyKey, entry.idempotencyKey)
            try spool.markDelivered(entry)
        }
    }

    func testAnUploadWhoseDownloadFailsNeverCompletesAndTheSpooledPhotoGoesWhole() throws {
        let gallery = try startGallery()
        let photo = try makePhoto("source.jpg", size: 200_000, seed: 32)
        let spool = try Spool.gallery(directory: spoolFolder)
        let (incoming, growing) = try growingPhoto(spool, name: "IMG_0003.JPG", size: photo.data.count)
        let request = multipartRequest(
            gallery, path: growing.url.path, fileName: growing.entry.uploadName,
            key: growing.entry.idempotencyKey)
        let outcome = startUpload(request, growing: growing)
        try append(incoming, photo.data, 0..<150_000)
        XCTAssert(try Subprocess.waitUntil(timeout: 30) { try gallery.uploadRequests().contains { $0.status == "pending" } })
        // The camera declares the last piece failed: its bytes are taken back.
        try incoming.truncate(to: 100_000)
        XCTAssert(Subprocess.waitUntil(timeout: 30) { outcome.get() != nil }, "the upload did not give up")
        let error = try expectTransportError(try XCTUnwrap(outcome.get()))
        XCTAssertEqual(error.category, .sourceIncomplete, error.description)
        XCTAssertEqual(spool.settleCutThrough(growing, retryDelay: 0), .abandoned)
        XCTAssert(try Subprocess.waitUntil(timeout: 30) { try gallery.uploadRequests().allSatisfy { $0.status != "pending" } })
        XCTAssertEqual(try gallery.photos().count, 0, "an incomplete body is never stored")
        XCTAssert(try gallery.uploadRequests().allSatisfy { $0.status == "dropped" || $0.status == "400" })

        // The download resumes and completes; the photo goes from the spool, whole.
        try append(incoming, photo.data, 100_000..<photo.data.count)
        let entry = try spool.commit(incoming)
        let claimed = try XCTUnwrap(spool.claimNext())
        XCTAssertEqual(claimed.id, entry.id)
        let again = multipartRequest(
            gallery, path: spool.photoURL(for: claimed).path, fileName: claimed.uploadName,
            key: claimed.idempotencyKey)
        XCTAssertEqual(try expectResponse(try HTTPUploadClient().perform(again)).statusCode, 201)
        let stored = try XCTUnwrap(try gallery.photos().first)
        XCTAssertEqual(try storedBytes(gallery, stored), photo.data)
    }
}
