import Foundation
import RelayCore
@testable import Spool
import XCTest

/// A spool feeding several destinations: per-destination progress in the sidecar, a photo that
/// leaves only once every destination has it, the low-priority rule, and retries per destination.
final class DestinationSpoolTests: XCTestCase {
    private var folder: URL!
    private let destinations = SpoolDestinations(
        primary: .init(id: "GALLERY", label: "gallery", lowPriority: false),
        others: [.init(id: "BACKUP", label: "backup", lowPriority: false)])

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
        XCTAssertEqual(spool.counts().queued, 1, "it still counts against the spool's limits")

        try spool.settlePhoto(forBackup, for: "BACKUP", .retry(after: 0, error: "503", statusCode: 503))
        XCTAssertEqual(try sidecar(photo)?.destinations?["BACKUP"]?.lastError, "503")
        let again = try XCTUnwrap(spool.takeDuePhoto(for: "BACKUP"))
        XCTAssertEqual(again.destinations?["BACKUP"]?.attempts, 2)
        try spool.settlePhoto(again, for: "BACKUP", .delivered)
        XCTAssertFalse(FileManager.default.fileExists(atPath: spool.photoURL(for: photo).path), "every destination has it: it goes")
        XCTAssertNil(try sidecar(photo))
        XCTAssertEqual(spool.counts().queued, 0)
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
        reopened.close()
        XCTAssertNil(reopened.claimNext(), "the gallery already has it")
        let forBackup = try XCTUnwrap(reopened.takeDuePhoto(for: "BACKUP"))
        try reopened.settlePhoto(forBackup, for: "BACKUP", .delivered)
        XCTAssertNil(try sidecar(photo))
    }

    /// A refusal by one destination moves the photo to failed/ once the other has it; a retry for
    /// that destination sends it there only.
    func testARefusalIsRetriedOnlyWhereItHappened() throws {
        var spool: Spool? = try Spool(directory: folder, destinations: destinations)
        let photo = try add(spool!, "A.JPG")
        let forBackup = try XCTUnwrap(spool!.takeDuePhoto(for: "BACKUP"))
        try spool!.settlePhoto(forBackup, for: "BACKUP", .failed(error: "wrong password", statusCode: nil))
        XCTAssertTrue(FileManager.default.fileExists(atPath: spool!.photoURL(for: photo).path), "the gallery still needs it")
        try spool!.markDelivered(try XCTUnwrap(spool!.claimNext()))
        let failed = try XCTUnwrap(try sidecar(photo, in: spool!.failedDirectory))
        XCTAssertEqual(failed.lastError, "backup: wrong password")
        XCTAssertEqual(failed.destinations?["GALLERY"]?.state, .delivered)
        spool = nil

        let retried = try Spool(directory: folder).retryFailed(destination: "backup")
        XCTAssertEqual(retried.map(\.id), [photo.id])
        let reopened = try Spool(directory: folder, destinations: destinations)
        reopened.close()
        XCTAssertNil(reopened.claimNext(), "not to the gallery again")
        XCTAssertEqual(reopened.takeDuePhoto(for: "BACKUP")?.id, photo.id)
    }

    /// A low-priority destination waits while the gallery has a photo due or in flight.
    func testLowPriorityWaitsForNormalWork() throws {
        let lowBackup = SpoolDestinations(primary: destinations.primary, others: [.init(id: "BACKUP", label: "backup", lowPriority: true)])
        let spool = try Spool(directory: folder, destinations: lowBackup)
        try add(spool, "A.JPG")
        XCTAssertNil(spool.takeDuePhoto(for: "BACKUP"), "the gallery's photo is due")
        let forGallery = try XCTUnwrap(spool.claimNext())
        XCTAssertNil(spool.takeDuePhoto(for: "BACKUP"), "the gallery's photo is in flight")
        spool.requeue(forGallery, after: 3600, error: "503", statusCode: 503)
        let backup = try XCTUnwrap(spool.takeDuePhoto(for: "BACKUP"), "the gallery waits an hour: the uplink is free")
        try spool.settlePhoto(backup, for: "BACKUP", .retry(after: 0, error: nil, statusCode: nil))

        try add(spool, "B.JPG")
        XCTAssertNil(spool.takeDuePhoto(for: "BACKUP"), "B is due for the gallery")
        spool.setPrimaryReachable(false)
        XCTAssertNotNil(spool.takeDuePhoto(for: "BACKUP"), "the gallery cannot be reached: nothing uses the uplink")
    }
}
