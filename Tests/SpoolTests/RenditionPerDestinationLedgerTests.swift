import Foundation
import Spool
import XCTest

/// Each destination its own rendition, in the pure ledger: a gallery at 2048 px and an archive
/// at 1024 px in one run, each waiting only for its own copy, whatever their order.
final class RenditionPerDestinationLedgerTests: XCTestCase {
    private let start = Date(timeIntervalSince1970: 1_800_000_000)
    private let gallery = SpoolDestination(id: "A", label: "gallery", rendition: "2048q85", takesGrowing: true)
    private let archive = SpoolDestination(id: "C", label: "archive", rendition: "1024q80")
    private let backup = SpoolDestination(id: "B", label: "backup", lowPriority: true)

    private func photo(_ number: Int, bytes: Int64 = 1_000, for destinations: [SpoolDestination]) -> SpoolEntry {
        var entry = SpoolEntry(
            id: "photo\(number)", sequence: number, source: "test", cameraFileName: "IMG_\(number).JPG", uploadName: "IMG_\(number).JPG",
            bytes: bytes, capturedAt: start, spooledAt: start, idempotencyKey: "photo\(number)")
        entry.destinations = Dictionary(uniqueKeysWithValues: destinations.map { ($0.id, DestinationProgress(label: $0.label)) })
        return entry
    }

    private func claim(_ ledger: inout PhotoLedger, _ destination: String) -> SpoolEntry? {
        if case .handOut(.spooled(let entry)) = ledger.apply(.claim(destination: destination, growing: .none, now: start, pid: 7)).answer {
            return entry
        }
        return nil
    }

    private func nextJob(_ ledger: inout PhotoLedger) -> RenditionJob? {
        if case .render(let job) = ledger.apply(.claimRendition).answer { return job }
        return nil
    }

    /// Stores the rendition for `spec` as the rendition thread does: recorded, then stored.
    private func store(_ ledger: inout PhotoLedger, _ id: String, spec: String, bytes: Int64) -> PhotoLedger.Step {
        _ = ledger.apply(.renditionRecorded(id: id, .made(spec: spec, photoKey: id, bytes: bytes, width: 2, height: 1)))
        return ledger.apply(.renditionStored(id: id, spec: spec, now: start, pid: 7))
    }

    func testTheGalleryAndTheArchiveEachGetTheirOwnSizeAndWaitOnlyForIt() throws {
        let run = [archive, gallery, backup]
        var ledger = PhotoLedger(destinations: SpoolDestinations(run))
        XCTAssertEqual(ledger.destinations.renditionKeys, ["1024q80", "2048q85"], "each spec once, in the order named")
        _ = ledger.apply(.admit(photo(1, for: run), offer: nil, now: start, pid: 7))
        XCTAssertNil(claim(&ledger, "A"), "the gallery waits for its rendition")
        XCTAssertNil(claim(&ledger, "C"), "so does the archive")

        XCTAssertEqual(nextJob(&ledger), .committed(try XCTUnwrap(ledger.sidecar("photo1")), spec: "1024q80"))
        XCTAssertTrue(store(&ledger, "photo1", spec: "1024q80", bytes: 100).actions.isEmpty)
        let toArchive = try XCTUnwrap(claim(&ledger, "C"), "the archive's copy is made: it goes without the gallery's")
        XCTAssertEqual(toArchive.rendition?.spec, "1024q80")
        XCTAssertEqual(toArchive.deliveryKey, "photo1-1024q80")
        XCTAssertNil(claim(&ledger, "A"), "the gallery still waits for its own")

        guard case .committed(_, let second)? = nextJob(&ledger) else { return XCTFail("the second size is not made") }
        XCTAssertEqual(second, "2048q85")
        XCTAssertNil(nextJob(&ledger), "one job per photo and spec")
        _ = store(&ledger, "photo1", spec: "2048q85", bytes: 300)
        let toGallery = try XCTUnwrap(claim(&ledger, "A"))
        XCTAssertEqual(toGallery.rendition?.spec, "2048q85")
        XCTAssertEqual(toGallery.deliveryBytes, 300)
        XCTAssertEqual(ledger.sidecar("photo1")?.renditions?.keys.sorted(), ["1024q80", "2048q85"], "the sidecar keeps both")

        let settled = ledger.apply(.settle(id: "photo1", destination: "C", .delivered, now: start))
        XCTAssertTrue(settled.actions.contains(.removeRendition(id: "photo1", spec: "1024q80")), "the archive's copy goes once it has it")
        XCTAssertFalse(settled.actions.contains(.removeRendition(id: "photo1", spec: "2048q85")), "the gallery's stays while it is sent")
        XCTAssertTrue(ledger.keepsRendition("photo1", spec: "2048q85"))
        XCTAssertFalse(ledger.keepsRendition("photo1", spec: "1024q80"))
        XCTAssertNil(claim(&ledger, "B")?.rendition, "the backup is sent the original")
    }

    /// Two destinations that name the same spec share one rendition: made once, sent to both.
    func testTheSameSpecIsMadeOnceForTwoDestinations() throws {
        let second = SpoolDestination(id: "D", label: "second gallery", rendition: "2048q85")
        let run = [gallery, second]
        var ledger = PhotoLedger(destinations: SpoolDestinations(run))
        _ = ledger.apply(.admit(photo(1, for: run), offer: nil, now: start, pid: 7))
        XCTAssertNotNil(nextJob(&ledger))
        XCTAssertNil(nextJob(&ledger), "one rendition for both")
        _ = store(&ledger, "photo1", spec: "2048q85", bytes: 300)
        XCTAssertEqual(claim(&ledger, "A")?.rendition?.spec, "2048q85")
        XCTAssertEqual(claim(&ledger, "D")?.rendition?.spec, "2048q85")
    }

    /// A photo still downloading is decoded for the first destination's spec; once committed,
    /// the other spec is made from the spooled photo.
    func testTheDownloadIsDecodedForOneSpecAndTheOtherIsMadeFromTheSpool() throws {
        let run = [gallery, archive]
        var ledger = PhotoLedger(destinations: SpoolDestinations(run))
        _ = ledger.apply(.offer(photo(1, bytes: 0, for: []), offer: 1))
        XCTAssertEqual(nextJob(&ledger), .growing(offer: 1, spec: "2048q85"))
        _ = ledger.committing("photo1", fileName: "IMG_1.JPG", reservation: nil, offer: 1)
        guard case .end(offer: 1, .committed)? = ledger.apply(.admit(photo(1, for: run), offer: 1, now: start, pid: 7)).actions.first else {
            return XCTFail("the rendition thread finishes the streamed spec")
        }
        guard case .committed(_, let other)? = nextJob(&ledger) else { return XCTFail("the archive's size is not made") }
        XCTAssertEqual(other, "1024q80")
    }

    /// A sidecar that recorded a spec no destination of this run takes drops it (its file is
    /// removed); one whose file is gone is made again.
    func testAtStartAnotherRunsSpecGoesAndAMissingFileIsMadeAgain() throws {
        let run = [gallery, archive]
        var ledger = PhotoLedger(destinations: SpoolDestinations(run))
        var entry = photo(1, for: run)
        entry.renditions = [
            "800q70": .made(spec: "800q70", photoKey: "photo1", bytes: 50, width: 2, height: 1),
            "2048q85": .made(spec: "2048q85", photoKey: "photo1", bytes: 300, width: 2, height: 1),
            "1024q80": .made(spec: "1024q80", photoKey: "photo1", bytes: 100, width: 2, height: 1),
        ]
        XCTAssertEqual(
            ledger.apply(.found(entry, FoundFiles(renditions: ["2048q85", "800q70"]))), [.removeRendition(id: "photo1", spec: "800q70")])
        XCTAssertEqual(claim(&ledger, "A")?.rendition?.spec, "2048q85", "its file is there: it goes")
        XCTAssertNil(claim(&ledger, "C"), "its file is gone")
        XCTAssertEqual(nextJob(&ledger), .committed(try XCTUnwrap(ledger.sidecar("photo1")), spec: "1024q80"))
    }
}
