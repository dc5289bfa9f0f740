import Foundation
import RelayCore
import TestSupport
import XCTest

@testable import Spool

/// A spool feeding several destinations: per-destination progress in the sidecar, a photo that
/// leaves only once every destination has it, the low-priority rule, and retries per destination.
final class DestinationSpoolTests: XCTestCase {
    private var folder: URL!
    private let gallery = SpoolDestination(id: "GALLERY", label: "gallery", takesGrowing: true)
    private var destinations: SpoolDestinations { SpoolDestinations([gallery, SpoolDestination(id: "BACKUP", label: "backup")]) }

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("spool-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    @discardableResult
    private func add(_ spool: Spool, _ name: String) throws -> SpoolEntry {
        try spool.ingest(PhotoIdentity(source: "test", fileName: name, bytes: 100, capturedAt: Date(), uniqueKey: name)) { fd in
            try AtomicFile.writeAll(fd, Data(repeating: 0xAB, count: 100))
        }
    }

    private func sidecar(_ entry: SpoolEntry, in directory: URL? = nil) throws -> SpoolEntry? {
        try JSONStateFile<SpoolEntry>(url: (directory ?? folder).appendingPathComponent("\(entry.id).json")).load()
    }

    func testThePhotoStaysUntilEveryDestinationHasIt() throws {
        let spool = try Spool(directory: folder, destinations: destinations)
        let photo = try add(spool, "A.JPG")
        XCTAssertEqual(try sidecar(photo)?.destinations?.keys.sorted(), ["BACKUP", "GALLERY"])

        let forBackup = try XCTUnwrap(spool.takeDuePhoto(for: "BACKUP"), "a committed photo is due for the other destination at once")
        XCTAssertNil(spool.takeDuePhoto(for: "BACKUP"), "not twice while in flight")
        let forGallery = try XCTUnwrap(spool.claimNext())
        try spool.markDelivered(forGallery)
        XCTAssertTrue(FileManager.default.fileExists(atPath: spool.photoURL(for: photo).path), "the backup still needs it")
        XCTAssertEqual(try sidecar(photo)?.destinations?["GALLERY"]?.state, .delivered)
        XCTAssertEqual(spool.counts().queued + spool.counts().inFlight, 1, "it still counts against the spool's limits")

        try spool.settle(forBackup, for: "BACKUP", .retry(after: 0, error: "503", statusCode: 503))
        XCTAssertEqual(try sidecar(photo)?.destinations?["BACKUP"]?.lastError, "503")
        let again = try XCTUnwrap(spool.takeDuePhoto(for: "BACKUP"))
        XCTAssertEqual(again.destinations?["BACKUP"]?.attempts, 2)
        try spool.settle(again, for: "BACKUP", .delivered)
        XCTAssertFalse(FileManager.default.fileExists(atPath: spool.photoURL(for: photo).path), "every destination has it: it goes")
        XCTAssertNil(try sidecar(photo))
        XCTAssertEqual(spool.counts().queued, 0)
    }

    /// Every destination's workers make the same calls (claimWork, uploadURL, settle): the
    /// rendition goes to the destination the queue feeds, every other one is sent the original
    /// under the original's key, and a refusal anywhere sends the photo to failed/ once all settled.
    func testEveryDestinationIsServedThroughTheSameCalls() throws {
        let resized = SpoolDestination(id: "GALLERY", label: "gallery", rendition: "w800", takesGrowing: true)
        let spool = try Spool(
            directory: folder, destinations: SpoolDestinations([resized, SpoolDestination(id: "BACKUP", label: "backup")]))
        let photo = try add(spool, "A.JPG")
        let rendering = try XCTUnwrap(spool.claimCommittedRendition())
        XCTAssertTrue(
            FileManager.default.createFile(atPath: spool.renditionWorkURL(for: rendering, spec: "w800").path, contents: Data([1, 2, 3])))
        try spool.finishRendition(rendering, .made(spec: "w800", photoKey: photo.idempotencyKey, bytes: 3, width: 2, height: 1))

        guard case .spooled(let forBackup)? = spool.claimWork(for: "BACKUP", growing: .any) else {
            return XCTFail("nothing for the backup")
        }
        XCTAssertEqual(forBackup.attempts, 1)
        XCTAssertNil(forBackup.rendition, "the rendition is the gallery's")
        XCTAssertEqual(spool.uploadURL(for: forBackup), spool.photoURL(for: photo))
        XCTAssertEqual(forBackup.deliveryKey, photo.idempotencyKey)
        guard case .spooled(let forGallery)? = spool.claimWork(for: "GALLERY", growing: .any) else {
            return XCTFail("nothing for the gallery")
        }
        XCTAssertEqual(spool.uploadURL(for: forGallery).lastPathComponent, "\(photo.id).w800.rendition.jpg")
        XCTAssertEqual(forGallery.deliveryKey, "\(photo.idempotencyKey)-w800")

        try spool.settle(forBackup, for: "BACKUP", .failed(error: "550 permission denied", statusCode: nil))
        XCTAssertTrue(FileManager.default.fileExists(atPath: spool.photoURL(for: photo).path), "the gallery's upload is still in flight")
        try spool.settle(forGallery, for: "GALLERY", .delivered)
        XCTAssertFalse(FileManager.default.fileExists(atPath: spool.photoURL(for: photo).path))
        let failed = try XCTUnwrap(spool.snapshot().failed.first { $0.id == photo.id }, "refused by the backup: kept in failed/")
        XCTAssertEqual(failed.destinations?["GALLERY"]?.state, .delivered)
        XCTAssertEqual(failed.destinations?["BACKUP"]?.lastError, "550 permission denied")
    }

    /// After a restart each destination goes on where it was: the gallery, which has the photo,
    /// does not get it again; the backup does.
    func testProgressSurvivesARestart() throws {
        var spool: Spool? = try Spool(directory: folder, destinations: destinations)
        let photo = try add(spool!, "A.JPG")
        try spool!.markDelivered(try XCTUnwrap(spool!.claimNext()))
        spool!.close()
        spool = nil

        let reopened = try Spool(directory: folder, destinations: destinations)
        XCTAssertEqual(reopened.snapshot().queued.map(\.id), [photo.id])
        XCTAssertNil(reopened.takeDuePhoto(for: "GALLERY"), "the gallery already has it")
        let forBackup = try XCTUnwrap(reopened.takeDuePhoto(for: "BACKUP"))
        try reopened.settle(forBackup, for: "BACKUP", .delivered)
        XCTAssertNil(try sidecar(photo))
    }

    /// A refusal by one destination moves the photo to failed/ once the other has it; a retry for
    /// that destination sends it there only.
    func testARefusalIsRetriedOnlyWhereItHappened() throws {
        var spool: Spool? = try Spool(directory: folder, destinations: destinations)
        let photo = try add(spool!, "A.JPG")
        let forBackup = try XCTUnwrap(spool!.takeDuePhoto(for: "BACKUP"))
        try spool!.settle(forBackup, for: "BACKUP", .failed(error: "wrong password", statusCode: nil))
        XCTAssertTrue(FileManager.default.fileExists(atPath: spool!.photoURL(for: photo).path), "the gallery still needs it")
        try spool!.markDelivered(try XCTUnwrap(spool!.claimNext()))
        let failed = try XCTUnwrap(try sidecar(photo, in: spool!.failedDirectory))
        XCTAssertEqual(failed.lastError, "backup: wrong password")
        XCTAssertEqual(failed.destinations?["GALLERY"]?.state, .delivered)
        spool = nil

        let retried = try Spool(directory: folder).retryFailed(destination: "backup")
        XCTAssertEqual(retried.map(\.id), [photo.id])
        let reopened = try Spool(directory: folder, destinations: destinations)
        XCTAssertNil(reopened.takeDuePhoto(for: "GALLERY"), "not to the gallery again")
        XCTAssertEqual(reopened.takeDuePhoto(for: "BACKUP")?.id, photo.id)
    }

    /// A low-priority destination waits while the gallery has a photo due or in flight.
    func testLowPriorityWaitsForNormalWork() throws {
        let lowBackup = SpoolDestinations([gallery, SpoolDestination(id: "BACKUP", label: "backup", lowPriority: true)])
        let spool = try Spool(directory: folder, destinations: lowBackup)
        try add(spool, "A.JPG")
        XCTAssertNil(spool.takeDuePhoto(for: "BACKUP"), "the gallery's photo is due")
        let forGallery = try XCTUnwrap(spool.claimNext())
        XCTAssertNil(spool.takeDuePhoto(for: "BACKUP"), "the gallery's photo is in flight")
        spool.requeue(forGallery, after: 3600, error: "503", statusCode: 503)
        let backup = try XCTUnwrap(spool.takeDuePhoto(for: "BACKUP"), "the gallery waits an hour: the uplink is free")
        try spool.settle(backup, for: "BACKUP", .retry(after: 0, error: nil, statusCode: nil))

        try add(spool, "B.JPG")
        XCTAssertNil(spool.takeDuePhoto(for: "BACKUP"), "B is due for the gallery")
        spool.setReachable(false, destination: "GALLERY")
        XCTAssertNotNil(spool.takeDuePhoto(for: "BACKUP"), "the gallery cannot be reached: nothing uses the uplink")
    }

    /// Issue 26's loss: A+B (B down), then a run to A alone, then A+B again. A gets each photo
    /// once; B ends with every photo; the run to A alone says what waits for B.
    func testARunToFewerDestinationsNeverDropsTheOthersDeliveries() throws {
        let onlyGallery = SpoolDestinations([gallery])
        var spool: Spool? = try Spool(directory: folder, destinations: destinations)
        let first = try (1...5).map { try add(spool!, "A\($0).JPG") }
        for _ in first { try spool!.markDelivered(try XCTUnwrap(spool!.claimNext())) }
        for _ in first {
            let forBackup = try XCTUnwrap(spool!.takeDuePhoto(for: "BACKUP"))
            try spool!.settle(forBackup, for: "BACKUP", .retry(after: 3600, error: "connection refused", statusCode: nil))
        }
        spool!.close()
        spool = nil

        var galleryOnly: Spool? = try Spool(directory: folder, destinations: onlyGallery)
        XCTAssertEqual(galleryOnly!.waitingElsewhere().map(\.id), ["BACKUP"])
        XCTAssertEqual(galleryOnly!.waitingElsewhere().first?.photos.count, 5)
        let second = try (1...3).map { try add(galleryOnly!, "B\($0).JPG") }
        var sentToGallery: [String] = []
        for _ in second {
            let entry = try XCTUnwrap(galleryOnly!.claimNext())
            sentToGallery.append(entry.id)
            try galleryOnly!.markDelivered(entry)
        }
        XCTAssertNil(galleryOnly!.takeDuePhoto(for: "GALLERY"), "the first five are not sent to the gallery a second time")
        XCTAssertEqual(Set(sentToGallery), Set(second.map(\.id)))
        for photo in first { XCTAssertTrue(FileManager.default.fileExists(atPath: galleryOnly!.photoURL(for: photo).path)) }
        for photo in second {
            XCTAssertEqual(try sidecar(photo)?.destinations?.keys.sorted(), nil, "taken for the gallery alone: delivered and gone")
        }
        galleryOnly = nil

        let again = try Spool(directory: folder, destinations: destinations)
        XCTAssertNil(again.takeDuePhoto(for: "GALLERY"), "nothing for the gallery")
        var sentToBackup: [String] = []
        while let entry = again.takeDuePhoto(for: "BACKUP", at: Date().addingTimeInterval(7200)) {
            sentToBackup.append(entry.id)
            try again.settle(entry, for: "BACKUP", .delivered)
        }
        XCTAssertEqual(sentToBackup, first.map(\.id), "the backup gets every photo taken for it, once")
        XCTAssertEqual(again.counts().queued, 0)
        XCTAssertEqual(again.waitingElsewhere(), [])
    }

    /// `relay drop --destination`: a photo that only the released destination waited for leaves
    /// the spool; one another destination waits for stays.
    func testReleasingADestination() throws {
        var spool: Spool? = try Spool(directory: folder, destinations: destinations)
        let delivered = try add(spool!, "A.JPG")
        let waitsForBoth = try add(spool!, "B.JPG")
        try spool!.markDelivered(try XCTUnwrap(spool!.claimNext()))
        spool!.close()
        spool = nil

        let plain = try Spool(directory: folder)
        let released = try plain.release(destination: "backup")
        XCTAssertEqual(released.map(\.id).sorted(), [delivered.id, waitsForBoth.id].sorted())
        XCTAssertFalse(FileManager.default.fileExists(atPath: plain.photoURL(for: delivered).path), "the gallery had it: it goes")
        XCTAssertEqual(try sidecar(waitsForBoth)?.destinations?.keys.sorted(), ["GALLERY"], "still waits for the gallery")
        XCTAssertEqual(try plain.release(destination: "backup"), [], "nothing waits for it any more")
    }

    /// A destination's settlement can write the sidecar a moment after another destination's
    /// finished the photo (both delivered at once, seen in SeveralDestinationsTests): that late
    /// write must not bring back a "queued" sidecar of a photo that left the spool.
    func testALateWriteDoesNotBringBackTheSidecarOfAPhotoThatLeft() throws {
        let spool = try Spool(directory: folder, destinations: destinations)
        let photo = try add(spool, "A.JPG")
        let forBackup = try XCTUnwrap(spool.takeDuePhoto(for: "BACKUP"))
        try spool.settle(forBackup, for: "BACKUP", .delivered)
        try spool.markDelivered(try XCTUnwrap(spool.claimNext()))
        XCTAssertNil(try sidecar(photo), "both have it: it left")
        try spool.saveSidecar(forBackup.id)
        XCTAssertNil(try sidecar(photo), "the late write is dropped")
        XCTAssertEqual(Spool.inspect(directory: folder).queued.count, 0)
    }
}

extension Spool {
    /// A claim that does not wait: the photo due now for `destination`, if any (the priority
    /// rule checked without threads).
    fileprivate func takeDuePhoto(for destination: String, at now: Date = Date()) -> SpoolEntry? {
        guard case .handOut(.spooled(let entry)) = apply(.claim(destination: destination, growing: .none, now: now, pid: 1)).answer else {
            return nil
        }
        return entry
    }
}
