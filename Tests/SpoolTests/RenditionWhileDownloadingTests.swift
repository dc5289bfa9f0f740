import Foundation
import RelayCore
import Spool
import TestSupport
import XCTest

/// The spool's side of renditions made while their photo downloads: in a rendition run a
/// download is offered to the rendition thread (not to upload workers), the commit hands that
/// thread the entry to finish, and a rendition offered as it is written is readable to its last
/// byte only once the photo is committed and the rendition stored, the photo then in flight for
/// the worker sending it.
final class RenditionWhileDownloadingTests: XCTestCase {
    private var folder: URL!
    private let key = "1024q85"

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("rendition-growing-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func begin(_ spool: Spool, _ name: String) throws -> (IncomingPhoto, GrowingPhoto) {
        let incoming = try spool.beginIngest(
            PhotoIdentity(source: "test", fileName: name, bytes: 10, capturedAt: Date(), uniqueKey: name))
        spool.offer(incoming)
        guard case .growing(let photo, _)? = spool.claimRenditionWork() else {
            XCTFail("the download was not offered to the rendition thread")
            throw CancellationError()
        }
        return (incoming, photo)
    }

    /// Writes `bytes` as the rendition's file so far (in place, as the encoder does: a reader's
    /// descriptor sees them).
    private func writeRendition(_ spool: Spool, _ entry: SpoolEntry, _ bytes: [UInt8]) throws {
        let fd = open(spool.renditionWorkURL(for: entry, spec: key).path, O_WRONLY | O_CREAT, 0o600)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        XCTAssertEqual(bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }, bytes.count)
    }

    private func read(_ file: GrowingPhoto, _ count: Int) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        XCTAssertEqual(pread(file.fileDescriptor, &buffer, count, 0), count)
        return buffer
    }

    func testTheRenditionGoesOutAsItIsWrittenAndItsLastByteAfterTheCommitAndTheStore() throws {
        let spool = try Spool.gallery(directory: folder, renditionKey: key)
        let (incoming, photo) = try begin(spool, "IMG_0001.JPG")
        try incoming.append([UInt8](repeating: 7, count: 10))
        try writeRendition(spool, photo.entry, [1, 2, 3])
        let upload = try XCTUnwrap(spool.offerRendition(of: photo, spec: key, written: 3))
        guard case .growing(let sending)? = spool.claimNextWork(cutThrough: true) else { return XCTFail("no worker took it") }
        XCTAssertTrue(sending === upload)
        XCTAssertNil(upload.finalSize, "its length is not known: it goes chunked")
        XCTAssertTrue(upload.entry.sendsRendition)
        XCTAssertEqual(upload.entry.deliveryKey, "\(photo.entry.idempotencyKey)-\(key)")
        XCTAssertEqual(upload.waitForBytes(beyond: 0, timeout: 0), .available(2), "the last byte written is held back")

        let entry = try spool.commit(incoming)
        XCTAssertEqual(photo.ended, .committed(entry), "the rendition thread gets the committed entry")
        try writeRendition(spool, entry, [1, 2, 3, 4, 5])
        spool.renditionGrew(upload, to: 5)
        XCTAssertEqual(upload.waitForBytes(beyond: 2, timeout: 0), .available(4))
        XCTAssertNil(upload.ended, "the photo is committed, its rendition not yet stored")
        try spool.finishRendition(entry, .made(spec: key, photoKey: entry.idempotencyKey, bytes: 5, width: 2, height: 1))
        guard case .committed(let inFlight)? = upload.ended else { return XCTFail("not handed to the sending worker") }
        XCTAssertEqual(inFlight.id, entry.id)
        XCTAssertEqual(inFlight.rendition?.bytes, 5)
        XCTAssertEqual(upload.finalSize, 5)
        XCTAssertEqual(upload.waitForBytes(beyond: 4, timeout: 0), .available(5))
        XCTAssertEqual(upload.waitForBytes(beyond: 5, timeout: 0), .ended)
        XCTAssertEqual(read(upload, 5), [1, 2, 3, 4, 5], "the stored rendition, read through the offer's descriptor")
        try spool.markDelivered(inFlight)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("\(entry.id).\(key).rendition.jpg").path))
    }

    func testAnAbandonedDownloadOrAnOriginalOutcomeWithdrawsTheRendition() throws {
        let spool = try Spool.gallery(directory: folder, renditionKey: key)
        let (incoming, photo) = try begin(spool, "IMG_0002.JPG")
        try writeRendition(spool, photo.entry, [1, 2, 3])
        let upload = try XCTUnwrap(spool.offerRendition(of: photo, spec: key, written: 3))
        spool.withdraw(incoming)
        XCTAssertEqual(photo.waitForBytes(beyond: 0, timeout: 0), .abandoned)
        spool.withdrawRendition(upload)
        XCTAssertEqual(upload.waitForBytes(beyond: 0, timeout: 0), .abandoned)
        spool.dropRenditionOffer(photo)

        // Offered again (a resumed download), committed, and its rendition ends as the original.
        spool.offer(incoming)
        guard case .growing(let again, _)? = spool.claimRenditionWork() else { return XCTFail("not offered again") }
        try incoming.append([UInt8](repeating: 7, count: 10))
        try writeRendition(spool, again.entry, [9])
        let second = try XCTUnwrap(spool.offerRendition(of: again, spec: key, written: 1))
        guard case .growing? = spool.claimNextWork(cutThrough: true) else { return XCTFail("no worker took it") }
        let entry = try spool.commit(incoming)
        XCTAssertEqual(again.ended, .committed(entry))
        try spool.finishRendition(entry, .original(spec: key, photoKey: entry.idempotencyKey, reason: "damaged"))
        XCTAssertEqual(second.ended, .abandoned, "the worker gives up; the original goes from the spool")
        XCTAssertEqual(spool.settleCutThrough(second, retryDelay: 0), .abandoned)
        guard case .spooled(let queued)? = spool.claimNextWork(cutThrough: false) else { return XCTFail("the original is not queued") }
        XCTAssertEqual(queued.id, entry.id)
        XCTAssertFalse(queued.sendsRendition)
    }

    /// The rendition thread gives up a photo that was committed meanwhile (its file could not
    /// be read): the photo is not left waiting for a rendition nobody makes.
    func testAPhotoGivenUpAfterItsCommitIsMadeFromTheSpool() throws {
        let spool = try Spool.gallery(directory: folder, renditionKey: key)
        let (incoming, photo) = try begin(spool, "IMG_0003.JPG")
        try incoming.append([UInt8](repeating: 7, count: 10))
        let entry = try spool.commit(incoming)
        XCTAssertEqual(photo.ended, .committed(entry))
        spool.dropRenditionOffer(photo)
        guard case .committed(let again, _)? = spool.claimRenditionWork() else { return XCTFail("not given back") }
        XCTAssertEqual(again.id, entry.id)
    }
}
