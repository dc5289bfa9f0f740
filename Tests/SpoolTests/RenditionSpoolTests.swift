import Foundation
import RelayCore
import Spool
import TestSupport
import XCTest

/// The spool's side of renditions: a photo is not handed to the uploader before its rendition
/// is stored, a rendition half written when relay died is made again, and one made for another
/// spec is not sent.
final class RenditionSpoolTests: XCTestCase {
    private var folder: URL!
    private let key = "2048q85"

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("rendition-spool-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func spoolPhoto(_ spool: Spool, _ name: String) throws -> SpoolEntry {
        let identity = PhotoIdentity(source: "test", fileName: name, bytes: 4, capturedAt: Date(), uniqueKey: name)
        return try spool.ingest(identity) { fd in try AtomicFile.writeAll(fd, [0xFF, 0xD8, 0xFF, 0xD9]) }
    }

    /// Makes the rendition the way the rendition stage does: into the work file, then finished.
    private func makeRendition(_ spool: Spool, _ entry: SpoolEntry, bytes: [UInt8] = [1, 2, 3]) throws {
        XCTAssertTrue(FileManager.default.createFile(atPath: spool.renditionWorkURL(for: entry, spec: key).path, contents: Data(bytes)))
        try spool.finishRendition(entry, .made(spec: key, photoKey: entry.idempotencyKey, bytes: Int64(bytes.count), width: 2, height: 1))
    }

    private func nextWorkNow(_ spool: Spool) -> Spool.Work? {
        let box = WorkBox()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            box.work = spool.claimNextWork(cutThrough: true)
            done.signal()
        }
        if done.wait(timeout: .now() + 0.3) == .timedOut {
            spool.close()
            done.wait()
            return nil
        }
        return box.work
    }

    func testAPhotoWaitsForItsRenditionAndThenSendsIt() throws {
        let spool = try Spool.gallery(directory: folder, renditionKey: key)
        let entry = try spoolPhoto(spool, "IMG_0001.JPG")
        let claimed = try XCTUnwrap(spool.claimCommittedRendition())
        XCTAssertEqual(claimed.id, entry.id)
        try makeRendition(spool, claimed)
        guard case .spooled(let sent)? = spool.claimNextWork(cutThrough: true) else { return XCTFail("not handed out after its rendition") }
        XCTAssertTrue(sent.sendsRendition)
        XCTAssertEqual(spool.uploadURL(for: sent).lastPathComponent, "\(entry.id).\(key).rendition.jpg")
        XCTAssertEqual(sent.deliveryKey, "\(entry.idempotencyKey)-\(key)")
        XCTAssertEqual(sent.deliveryBytes, 3)
        try spool.markDelivered(sent)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("\(entry.id).\(key).rendition.jpg").path))
    }

    func testNothingIsHandedOutBeforeTheRenditionAndNothingIsOfferedWhileDownloading() throws {
        let spool = try Spool.gallery(directory: folder, renditionKey: key)
        let incoming = try spool.beginIngest(
            PhotoIdentity(source: "test", fileName: "A.JPG", bytes: 10, capturedAt: Date(), uniqueKey: "A"))
        spool.offer(incoming)
        _ = try spoolPhoto(spool, "B.JPG")
        XCTAssertNil(nextWorkNow(spool), "neither the growing photo nor the one without rendition is handed out")
    }

    func testAHalfWrittenRenditionIsMadeAgainAfterACrash() throws {
        var id = ""
        do {
            let spool = try Spool.gallery(directory: folder, renditionKey: key)
            let entry = try spoolPhoto(spool, "IMG_0002.JPG")
            id = entry.id
            let claimed = try XCTUnwrap(spool.claimCommittedRendition())
            // relay dies while writing: the work file is in .incoming, the sidecar says nothing.
            XCTAssertTrue(FileManager.default.createFile(atPath: spool.renditionWorkURL(for: claimed, spec: key).path, contents: Data([1])))
            // A rendition renamed in just before the crash, its sidecar not yet written.
            try Data([9, 9]).write(to: folder.appendingPathComponent("\(id).\(key).rendition.jpg"))
        }
        let spool = try Spool.gallery(directory: folder, renditionKey: key)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(".incoming").path), [])
        let again = try XCTUnwrap(spool.claimCommittedRendition(), "made again")
        XCTAssertEqual(again.id, id)
        XCTAssertNil(again.rendition)
        try makeRendition(spool, again, bytes: [4, 5, 6, 7])
        guard case .spooled(let sent)? = spool.claimNextWork(cutThrough: false) else { return XCTFail("not handed out") }
        XCTAssertEqual(try Data(contentsOf: spool.uploadURL(for: sent)), Data([4, 5, 6, 7]))
    }

    func testAStoredRenditionSurvivesARestartAndAnotherSpecIsNotSent() throws {
        var id = ""
        do {
            let spool = try Spool.gallery(directory: folder, renditionKey: key)
            let entry = try spoolPhoto(spool, "IMG_0003.JPG")
            id = entry.id
            try makeRendition(spool, try XCTUnwrap(spool.claimCommittedRendition()))
        }
        do {
            let spool = try Spool.gallery(directory: folder, renditionKey: key)
            guard case .spooled(let sent)? = spool.claimNextWork(cutThrough: false) else { return XCTFail("not handed out") }
            XCTAssertTrue(sent.sendsRendition, "the stored rendition is sent, not made again")
            spool.requeue(sent, after: 0, error: nil, statusCode: nil)
        }
        // The config now sends originals: the old rendition goes, the photo is sent.
        let spool = try Spool.gallery(directory: folder)
        guard case .spooled(let sent)? = spool.claimNextWork(cutThrough: false) else { return XCTFail("not handed out") }
        XCTAssertFalse(sent.sendsRendition)
        XCTAssertEqual(spool.uploadURL(for: sent).lastPathComponent, "\(id).jpg")
        XCTAssertEqual(sent.deliveryKey, sent.idempotencyKey)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("\(id).\(key).rendition.jpg").path))
    }

    /// A spool left by a relay that made one rendition per run (`rendition` in the sidecar,
    /// `<id>.rendition.jpg`): the old file goes at start and the rendition is made again, under
    /// the spec's own name, before the photo is sent.
    func testAnOlderRelaysRenditionIsMadeAgainUnderItsSpec() throws {
        var id = ""
        do {
            let spool = try Spool.gallery(directory: folder, renditionKey: key)
            id = try spoolPhoto(spool, "IMG_0004.JPG").id
        }
        let sidecarURL = folder.appendingPathComponent("\(id).json")
        var sidecar = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: sidecarURL)) as? [String: Any])
        sidecar["rendition"] = ["spec": key, "bytes": 2, "width": 2, "height": 1, "idempotencyKey": "\(id)-\(key)"]
        try JSONSerialization.data(withJSONObject: sidecar).write(to: sidecarURL)
        let oldFile = folder.appendingPathComponent("\(id).rendition.jpg")
        try Data([9, 9]).write(to: oldFile)

        let spool = try Spool.gallery(directory: folder, renditionKey: key)
        XCTAssertFalse(FileManager.default.fileExists(atPath: oldFile.path), "the older relay's file is removed")
        XCTAssertNil(spool.entry(id)?.rendition)
        let making = try XCTUnwrap(spool.claimCommittedRendition(), "made again")
        try makeRendition(spool, making, bytes: [1, 2, 3, 4])
        guard case .spooled(let sent)? = spool.claimNextWork(cutThrough: false) else { return XCTFail("not handed out") }
        XCTAssertEqual(spool.uploadURL(for: sent).lastPathComponent, "\(id).\(key).rendition.jpg")
        XCTAssertEqual(sent.deliveryBytes, 4)
    }

    func testAnOriginalDecisionIsKeptAndSendsThePhoto() throws {
        let spool = try Spool.gallery(directory: folder, renditionKey: key)
        let entry = try spoolPhoto(spool, "SMALL.JPG")
        let claimed = try XCTUnwrap(spool.claimCommittedRendition())
        try spool.finishRendition(claimed, .original(spec: key, photoKey: entry.idempotencyKey, reason: "already small"))
        guard case .spooled(let sent)? = spool.claimNextWork(cutThrough: false) else { return XCTFail("not handed out") }
        XCTAssertEqual(sent.rendition?.originalReason, "already small")
        XCTAssertEqual(spool.uploadURL(for: sent).lastPathComponent, "\(entry.id).jpg")
        XCTAssertEqual(sent.deliveryKey, entry.idempotencyKey)
    }
}

private final class WorkBox: @unchecked Sendable {
    var work: Spool.Work?
}

extension Spool {
    /// The next committed photo whose rendition is to be made (these tests offer no download).
    func claimCommittedRendition() -> SpoolEntry? {
        guard case .committed(let entry, _)? = claimRenditionWork() else { return nil }
        return entry
    }
}
