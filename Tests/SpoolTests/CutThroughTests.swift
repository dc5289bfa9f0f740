import Foundation
import RelayCore
import Spool
import TestSupport
import XCTest

/// The spool's side of cut-through: a photo offered while it is still written is readable only
/// as far as the writer vouches for it, never to its last byte before the download is complete,
/// and is delivered, retried or failed only as a committed spool entry.
final class CutThroughTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("cut-through-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func identity(_ name: String, bytes: Int) -> PhotoIdentity {
        PhotoIdentity(source: "test", fileName: name, bytes: Int64(bytes), capturedAt: Date(), uniqueKey: name)
    }

    /// Begins and offers a photo of `bytes`, and claims it as a worker with nothing spooled would.
    private func offerAndClaim(_ spool: Spool, _ name: String, bytes: Int) throws -> (IncomingPhoto, GrowingPhoto) {
        let incoming = try spool.beginIngest(identity(name, bytes: bytes))
        spool.offer(incoming)
        guard case .growing(let photo) = spool.claimNextWork(cutThrough: true) else {
            XCTFail("the offer was not handed out")
            throw CancellationError()
        }
        return (incoming, photo)
    }

    func testOnlyWrittenBytesAreReadableAndTheLastWaitsForTheCommit() throws {
        let spool = try Spool.gallery(directory: folder)
        let (incoming, photo) = try offerAndClaim(spool, "IMG_0001.JPG", bytes: 10)
        XCTAssertEqual(photo.finalSize, 10)
        XCTAssertEqual(photo.entry.attempts, 1)
        XCTAssertEqual(photo.waitForBytes(beyond: 0, timeout: 0), .pending, "nothing written yet")
        try incoming.append([UInt8](repeating: 1, count: 4))
        XCTAssertEqual(photo.waitForBytes(beyond: 0, timeout: 0), .available(4))
        try incoming.append([UInt8](repeating: 2, count: 6))
        XCTAssertEqual(photo.waitForBytes(beyond: 4, timeout: 0), .available(9), "the last byte is held back")
        XCTAssertEqual(photo.waitForBytes(beyond: 9, timeout: 0), .pending)
        XCTAssertNil(photo.ended)
        let entry = try spool.commit(incoming)
        XCTAssertEqual(photo.waitForBytes(beyond: 9, timeout: 0), .available(10), "committed: the photo is durable")
        var buffer = [UInt8](repeating: 0, count: 10)
        XCTAssertEqual(pread(photo.fileDescriptor, &buffer, 10, 0), 10, "the reader's descriptor survives the rename")
        XCTAssertEqual(buffer, [1, 1, 1, 1, 2, 2, 2, 2, 2, 2])
        XCTAssertEqual(photo.ended, .committed(entry))
    }

    func testAWaitingReaderIsWokenByTheWriter() throws {
        let spool = try Spool.gallery(directory: folder)
        let (incoming, photo) = try offerAndClaim(spool, "IMG_0001.JPG", bytes: 8)
        let woke = expectation(description: "reader sees the bytes")
        Thread {
            if photo.waitForBytes(beyond: 0, timeout: 30) == .available(3) { woke.fulfill() }
        }.start()
        Thread.sleep(forTimeInterval: 0.05)
        try incoming.append([1, 2, 3])
        wait(for: [woke], timeout: 30)
    }

    func testARewindAbandonsTheOfferForGoodAndTheCommitQueuesThePhoto() throws {
        let spool = try Spool.gallery(directory: folder)
        let (incoming, photo) = try offerAndClaim(spool, "IMG_0001.JPG", bytes: 10)
        try incoming.append([UInt8](repeating: 1, count: 6))
        try incoming.truncate(to: 2)
        XCTAssertTrue(photo.isAbandoned)
        try incoming.append([UInt8](repeating: 3, count: 8))
        let entry = try spool.commit(incoming)
        XCTAssertEqual(photo.waitForBytes(beyond: 0, timeout: 0), .abandoned, "rewritten bytes never reach that upload")
        XCTAssertEqual(photo.ended, .abandoned)
        XCTAssertEqual(spool.counts().queued, 1, "queued for a whole upload, not left in flight for the abandoned one")
        XCTAssertEqual(spool.counts().inFlight, 0)
        XCTAssertEqual(spool.settleCutThrough(photo, retryDelay: 0), .abandoned)
        let again = try XCTUnwrap(spool.claimNext())
        XCTAssertEqual(again.id, entry.id)
        XCTAssertEqual(again.attempts, 1)
        let sidecar = try XCTUnwrap(JSONStateFile<SpoolEntry>(url: folder.appendingPathComponent("\(entry.id).json")).load())
        XCTAssertEqual(sidecar.attempts, 1)
    }

    func testASizeOtherThanAnnouncedIsNotHandedToTheUpload() throws {
        let spool = try Spool.gallery(directory: folder)
        let (incoming, photo) = try offerAndClaim(spool, "IMG_0001.JPG", bytes: 10)
        try incoming.append([UInt8](repeating: 1, count: 7))
        _ = try spool.commit(incoming)
        XCTAssertEqual(photo.ended, .abandoned)
        XCTAssertEqual(photo.waitForBytes(beyond: 6, timeout: 0), .abandoned)
        XCTAssertEqual(spool.counts().queued, 1)
    }

    func testACommitWhileClaimedIsInFlightForThatWorkerOnly() throws {
        let spool = try Spool.gallery(directory: folder)
        let (incoming, photo) = try offerAndClaim(spool, "IMG_0001.JPG", bytes: 5)
        try incoming.append([1, 2, 3, 4, 5])
        let entry = try spool.commit(incoming)
        XCTAssertEqual(photo.ended, .committed(entry))
        XCTAssertEqual(entry.id, photo.entry.id)
        XCTAssertEqual(entry.uploadName, photo.entry.uploadName, "the name already sent is the name kept")
        XCTAssertEqual(entry.sequence, photo.entry.sequence)
        XCTAssertEqual(spool.counts().queued, 0)
        XCTAssertEqual(spool.counts().inFlight, 1)
        let sidecar = try XCTUnwrap(JSONStateFile<SpoolEntry>(url: folder.appendingPathComponent("\(entry.id).json")).load())
        XCTAssertEqual(sidecar.attempts, 1)
        XCTAssertNotNil(sidecar.inFlightSince, "a crash now resumes it as an attempted photo")
        try spool.markDelivered(entry)
        XCTAssertEqual(spool.counts().inFlight, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: spool.photoURL(for: entry).path))
    }

    func testAFailedUploadBeforeTheCommitLeavesThePhotoToTheQueueAfterTheDelay() throws {
        let spool = try Spool.gallery(directory: folder)
        let (incoming, photo) = try offerAndClaim(spool, "IMG_0001.JPG", bytes: 3)
        XCTAssertEqual(spool.settleCutThrough(photo, retryDelay: 60), .abandoned, "not committed: nothing to settle")
        try incoming.append([1, 2, 3])
        let entry = try spool.commit(incoming)
        XCTAssertEqual(spool.counts().queued, 1, "committed photos are queued as usual")
        XCTAssertEqual(entry.attempts, 0)
        let claimed = expectation(description: "claimed")
        claimed.isInverted = true
        Thread {
            if spool.claimNext() != nil { claimed.fulfill() }
        }.start()
        wait(for: [claimed], timeout: 0.3)
        spool.close()
    }

    func testAFailedUploadAfterTheCommitIsSettledByTheUsualRules() throws {
        let spool = try Spool.gallery(directory: folder)
        let (incoming, photo) = try offerAndClaim(spool, "IMG_0001.JPG", bytes: 3)
        try incoming.append([1, 2, 3])
        let entry = try spool.commit(incoming)
        XCTAssertEqual(spool.settleCutThrough(photo, retryDelay: 0), .committed(entry))
        spool.requeue(entry, after: 0, error: "HTTP 503", statusCode: 503)
        let again = try XCTUnwrap(spool.claimNext())
        XCTAssertEqual(again.id, entry.id)
        XCTAssertEqual(again.attempts, 2, "the upload during the download counted as the first attempt")
        XCTAssertEqual(try Data(contentsOf: spool.photoURL(for: again)), Data([1, 2, 3]), "a retry reads the committed file")
    }

    func testAWithdrawnOfferIsNotHandedOutAndItsReaderGivesUp() throws {
        let spool = try Spool.gallery(directory: folder)
        let incoming = try spool.beginIngest(identity("IMG_0001.JPG", bytes: 4))
        spool.offer(incoming)
        spool.withdraw(incoming)
        try add(spool, "IMG_0002.JPG")
        guard case .spooled(let entry) = spool.claimNextWork(cutThrough: true) else { return XCTFail("expected the spooled photo") }
        XCTAssertEqual(entry.cameraFileName, "IMG_0002.JPG")

        let (second, photo) = try offerAndClaim(spool, "IMG_0003.JPG", bytes: 4)
        try second.append([1, 2])
        spool.withdraw(second)
        XCTAssertEqual(photo.waitForBytes(beyond: 0, timeout: 0), .abandoned)
        XCTAssertEqual(spool.settleCutThrough(photo, retryDelay: 0), .abandoned)
        spool.offer(second)
        try second.append([3, 4])
        let entry3 = try spool.commit(second)
        XCTAssertEqual(photo.ended, .abandoned, "the first reader never learns of the later commit")
        XCTAssertEqual(entry3.uploadName, photo.entry.uploadName, "the resumed download keeps its reserved name")
        XCTAssertEqual(spool.counts().queued, 1, "offered again but unclaimed, it is queued on commit")
        XCTAssertEqual(entry3.attempts, 0)
    }

    func testSpooledPhotosGoBeforeAnOffer() throws {
        let spool = try Spool.gallery(directory: folder)
        let incoming = try spool.beginIngest(identity("IMG_0002.JPG", bytes: 4))
        spool.offer(incoming)
        try add(spool, "IMG_0001.JPG")
        guard case .spooled(let first) = spool.claimNextWork(cutThrough: true) else { return XCTFail("spooled first") }
        XCTAssertEqual(first.cameraFileName, "IMG_0001.JPG")
        guard case .growing(let photo) = spool.claimNextWork(cutThrough: true) else { return XCTFail("then the offer") }
        XCTAssertEqual(photo.entry.cameraFileName, "IMG_0002.JPG")
    }

    func testAReservedNameIsNotGivenToAnotherPhotoEvenWhileWithdrawn() throws {
        let spool = try Spool.gallery(directory: folder)
        let incoming = try spool.beginIngest(
            PhotoIdentity(source: "a", fileName: "IMG_1.JPG", bytes: 4, capturedAt: Date(), uniqueKey: "1"))
        spool.offer(incoming)
        spool.withdraw(incoming)
        let other = try spool.ingest(PhotoIdentity(source: "b", fileName: "IMG_1.JPG", bytes: 1, capturedAt: Date(), uniqueKey: "2")) { _ in
        }
        XCTAssertNotEqual(other.uploadName, "IMG_1.JPG")
    }

    @discardableResult
    private func add(_ spool: Spool, _ name: String) throws -> SpoolEntry {
        try spool.ingest(identity(name, bytes: 1)) { fd in try AtomicFile.writeAll(fd, Data([0xAB])) }
    }
}
