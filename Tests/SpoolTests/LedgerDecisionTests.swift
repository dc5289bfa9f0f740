import Foundation
import Spool
import XCTest

/// What the ledger decides about the files the Spool finds at start and about a photo that
/// leaves for failed/: facts in, actions out, no files.
final class LedgerDecisionTests: XCTestCase {
    private let start = Date(timeIntervalSince1970: 1_800_000_000)
    private let gallery = SpoolDestination(id: "A", label: "gallery", rendition: "2048")
    private let backup = SpoolDestination(id: "B", label: "backup")

    private func photo(_ number: Int) -> SpoolEntry {
        var entry = SpoolEntry(
            id: "photo\(number)", sequence: number, source: "test", cameraFileName: "IMG_\(number).JPG", uploadName: "IMG_\(number).JPG",
            bytes: 1_000, capturedAt: start, spooledAt: start, idempotencyKey: "photo\(number)")
        entry.destinations = ["A": DestinationProgress(label: "gallery"), "B": DestinationProgress(label: "backup")]
        return entry
    }

    /// A ledger at start whose `.sequence` holds every number found (or not).
    private func starting(numbersPersisted: Bool = true) -> PhotoLedger {
        var ledger = PhotoLedger(destinations: SpoolDestinations([gallery, backup]))
        _ = ledger.apply(.numbering(persisted: numbersPersisted ? 9 : 3, highestFound: 9))
        return ledger
    }

    // MARK: - Start

    func testADeliveredSidecarFoundAtStartHasItsFilesRemovedNotSent() {
        var ledger = starting()
        var delivered = photo(1)
        delivered.state = .delivered
        delivered.renditions = ["800": .made(spec: "800", photoKey: "photo1", bytes: 10, width: 8, height: 6)]
        XCTAssertEqual(
            ledger.apply(.found(delivered, FoundFiles(renditions: ["800"]))),
            [
                .removePhoto(id: "photo1"), .removeRendition(id: "photo1", spec: "2048"), .removeRendition(id: "photo1", spec: "800"),
                .removeSidecar(id: "photo1"),
            ],
            "every rendition it may have: those it recorded and those the run makes")
        XCTAssertFalse(ledger.contains("photo1"))
    }

    func testASidecarWithoutItsPhotoGoesButKeepsItsNumberUntilSequenceHoldsIt() {
        var ledger = starting(numbersPersisted: false)
        XCTAssertEqual(
            ledger.apply(.found(photo(9), FoundFiles(photo: false))), [.removeRendition(id: "photo9", spec: "2048")],
            "never committed: no photo to remove, and its sidecar is the last record of number 9")
        _ = ledger.apply(.persisted(9))
        XCTAssertEqual(
            ledger.apply(.found(photo(8), FoundFiles(photo: false))),
            [.removeRendition(id: "photo8", spec: "2048"), .removeSidecar(id: "photo8")])
        XCTAssertEqual(ledger.counts.queued, 0)
    }

    func testAMoveToFailedCutShortIsUndoneWhereThePhotoIs() {
        var ledger = starting()
        _ = ledger.apply(.foundFailed([photo(1), photo(2)]))
        XCTAssertEqual(ledger.apply(.found(photo(1), FoundFiles())), [.removeFailedSidecar(id: "photo1")], "the photo is here: queued")
        XCTAssertNil(ledger.failed["photo1"])
        XCTAssertEqual(ledger.counts.queued, 1)
        XCTAssertEqual(
            ledger.apply(.found(photo(2), FoundFiles(photo: false))),
            [.removeRendition(id: "photo2", spec: "2048"), .removeSidecar(id: "photo2")],
            "the photo is in failed/: the spool's sidecar goes")
        XCTAssertNotNil(ledger.failed["photo2"])
    }

    func testRenditionsNoPhotoNeedsGoAtStart() {
        var ledger = starting()
        var entry = photo(1)
        entry.renditions = ["2048": .made(spec: "2048", photoKey: "photo1", bytes: 10, width: 8, height: 6)]
        _ = ledger.apply(.found(entry, FoundFiles(renditions: ["2048"])))
        XCTAssertEqual(
            ledger.apply(.started(renditionFiles: ["photo1": ["2048", "800"], "gone": ["2048"], "old": [""]])),
            [
                .removeRendition(id: "gone", spec: "2048"), .removeRendition(id: "old", spec: ""),
                .removeRendition(id: "photo1", spec: "800"),
            ],
            "kept: the rendition its queued gallery leg takes")
    }

    // MARK: - Failed

    func testTheDestinationsThatRefusedAPhotoAreRecordedWhenItReachesFailed() throws {
        var ledger = PhotoLedger(destinations: SpoolDestinations([backup]))
        var refused = photo(1)
        refused.destinations?["A"]?.state = .failed
        refused.destinations?["B"]?.state = .delivered
        var older = photo(2)
        older.destinations = nil
        _ = ledger.apply(.foundFailed([refused, older]))
        XCTAssertEqual(ledger.failed, ["photo1": ["A"], "photo2": []], "an older relay's recorded none")

        var entry = photo(3)
        entry.destinations = ["B": DestinationProgress(label: "backup")]
        _ = ledger.apply(.admit(entry, offer: nil, now: start, pid: 7))
        _ = ledger.apply(.claim(destination: "B", growing: .none, now: start, pid: 7))
        let settled = ledger.apply(.settle(id: "photo3", destination: "B", .failed(error: "HTTP 413", statusCode: 413), now: start))
        XCTAssertEqual(settled.actions.count, 1, "finished: moved to failed/")
        _ = ledger.apply(.finished(id: "photo3"))
        XCTAssertEqual(ledger.failed["photo3"], ["B"])
    }

    func testAMoveToFailedThatFailedAfterThePhotoLeftFinishesIt() throws {
        var ledger = PhotoLedger(destinations: SpoolDestinations([backup]))
        var entry = photo(1)
        entry.destinations = ["B": DestinationProgress(label: "backup")]
        _ = ledger.apply(.admit(entry, offer: nil, now: start, pid: 7))
        _ = ledger.apply(.claim(destination: "B", growing: .none, now: start, pid: 7))
        _ = ledger.apply(.settle(id: "photo1", destination: "B", .failed(error: "HTTP 413", statusCode: 413), now: start))
        XCTAssertEqual(ledger.apply(.finishFailed(id: "photo1", photoLeft: true, now: start)), [], "a folder sync failed after the rename")
        XCTAssertEqual(ledger.failed["photo1"], ["B"], "failed/'s now, not tried again")
        XCTAssertEqual(ledger.counts.queued, 0)
    }

    func testAPhotoSetAsideCountsAsFailedWithoutRefusers() {
        var ledger = PhotoLedger(destinations: SpoolDestinations([backup]))
        _ = ledger.apply(.setAside(id: "unreadable"))
        XCTAssertEqual(ledger.failed["unreadable"], [])
        XCTAssertEqual(ledger.queues["B"]?.failed, 1, "counted for the run's first destination")
    }

    // MARK: - Steps

    func testOnlyAWaitOrClosedWithNothingToDoChangesNothing() {
        XCTAssertTrue(PhotoLedger.Step.answer(.wait(until: nil)).changesNothing)
        XCTAssertTrue(PhotoLedger.Step.answer(.closed).changesNothing)
        XCTAssertFalse(PhotoLedger.Step.answer(.wait(until: nil), .saveSidecar(id: "p")).changesNothing, "a tick that finishes a photo")
        XCTAssertFalse(PhotoLedger.Step([]).changesNothing, "an input with nothing to say changed the ledger")
    }
}
