import Foundation
import RelayCore
import Spool
import XCTest

/// Held legs in the pure ledger: a destination whose rule waits for a decision holds each photo
/// while the others take it at once; a verdict sends, rejects or holds it again.
final class HeldLegTests: XCTestCase {
    private let start = Date(timeIntervalSince1970: 1_800_000_000)
    private let gallery = SpoolDestination(id: "A", label: "gallery", takesGrowing: true, rule: .approved)
    private let backup = SpoolDestination(id: "B", label: "backup", lowPriority: true)

    private func photo(_ number: Int, rating: Int? = nil) -> SpoolEntry {
        var entry = SpoolEntry(
            id: "photo\(number)", sequence: number, source: "test", cameraFileName: "IMG_\(number).JPG", uploadName: "IMG_\(number).JPG",
            bytes: 1_000, capturedAt: start, spooledAt: start, idempotencyKey: "photo\(number)")
        entry.rating = rating
        entry.destinations = ["A": DestinationProgress(label: "gallery"), "B": DestinationProgress(label: "backup")]
        return entry
    }

    private func ledger(_ destinations: [SpoolDestination]? = nil) -> PhotoLedger {
        PhotoLedger(destinations: SpoolDestinations(destinations ?? [gallery, backup]))
    }

    private func claim(_ ledger: inout PhotoLedger, _ destination: String) -> SpoolEntry? {
        if case .handOut(.spooled(let entry)) = ledger.apply(.claim(destination: destination, growing: .none, now: start, pid: 7)).answer {
            return entry
        }
        return nil
    }

    private func decide(_ ledger: inout PhotoLedger, _ id: String, _ verdict: ReviewVerdict?, at now: Date? = nil) -> PhotoLedger.Step {
        ledger.apply(.decide(id: id, verdict: verdict, now: now ?? start))
    }

    private func finishing(_ step: PhotoLedger.Step) -> PhotoDestinations.Settlement? {
        for case .finish(_, let settlement) in step.actions { return settlement }
        return nil
    }

    private func changes(_ step: PhotoLedger.Step) -> [String: PhotoLedger.Decision.Change]? {
        if case .decided(let decisions?) = step.answer {
            return Dictionary(uniqueKeysWithValues: decisions.map { ($0.label, $0.change) })
        }
        return nil
    }

    func testAHeldLegWaitsWhileTheBackupTakesThePhotoAtOnceEvenAtLowPriority() throws {
        var ledger = ledger()
        _ = ledger.apply(.admit(photo(1), offer: nil, now: start, pid: 7))
        XCTAssertEqual(ledger.leg("photo1", "A")?.state(at: start), .held)
        XCTAssertNil(claim(&ledger, "A"), "the gallery gets nothing before a decision")
        XCTAssertEqual(claim(&ledger, "B")?.id, "photo1", "a held leg does not count as gallery work holding back the low-priority backup")
        XCTAssertEqual(ledger.queues["A"]?.held, 1)
        XCTAssertEqual(ledger.queues["A"]?.queued, 0)
        XCTAssertEqual(ledger.heldPhotos.map(\.destinations), [["gallery"]])
        XCTAssertEqual(ledger.heldUsage.photos, 1)
        XCTAssertEqual(ledger.heldUsage.bytes, 1_000)
        let done = ledger.apply(.settle(id: "photo1", destination: "B", .delivered, now: start))
        XCTAssertFalse(done.actions.contains { if case .finish = $0 { true } else { false } }, "the photo stays while the gallery holds it")
    }

    func testApprovalReleasesTheHeldLegAndTheGalleryTakesIt() throws {
        var ledger = ledger()
        _ = ledger.apply(.admit(photo(1), offer: nil, now: start, pid: 7))
        let actions = decide(&ledger, "photo1", .approved)
        XCTAssertEqual(changes(actions), ["gallery": .released, "backup": .unchanged])
        XCTAssertTrue(actions.actions.contains(.saveSidecar(id: "photo1")))
        XCTAssertEqual(claim(&ledger, "A")?.id, "photo1")
        XCTAssertEqual(
            changes(decide(&ledger, "photo1", nil)), ["gallery": .alreadySent, "backup": .unchanged], "in flight: too late to undo")
    }

    func testARejectedLegIsDoneAndThePhotoLeavesOnceTheBackupHasItAndTheUndoWindowPassed() throws {
        var ledger = ledger()
        _ = ledger.apply(.admit(photo(1), offer: nil, now: start, pid: 7))
        XCTAssertEqual(changes(decide(&ledger, "photo1", .rejected)), ["gallery": .rejected, "backup": .unchanged])
        XCTAssertEqual(ledger.sidecar("photo1")?.destinations?["A"]?.state, .rejected, "the sidecar keeps the rejection")
        XCTAssertEqual(ledger.sidecar("photo1")?.destinations?["A"]?.decidedAt, start)
        XCTAssertNil(claim(&ledger, "A"))
        XCTAssertEqual(claim(&ledger, "B")?.id, "photo1")
        let delivered = ledger.apply(.settle(id: "photo1", destination: "B", .delivered, now: start.addingTimeInterval(1)))
        XCTAssertNil(finishing(delivered), "kept for an undo of the rejection")
        let early = ledger.apply(.tick(now: start.addingTimeInterval(PhotoLedger.undoWindow - 1)))
        XCTAssertNil(finishing(early))
        XCTAssertEqual(
            early.answer, .wait(until: start.addingTimeInterval(PhotoLedger.undoWindow)),
            "the ledger names the moment the undo window ends: the feed waits for it, not on a clock")
        XCTAssertEqual(
            finishing(ledger.apply(.tick(now: start.addingTimeInterval(PhotoLedger.undoWindow)))), .delivered,
            "rejected is settled, not refused: the photo is removed, not kept in failed/")
        XCTAssertEqual(ledger.apply(.tick(now: start.addingTimeInterval(PhotoLedger.undoWindow))), .answer(.wait(until: nil)))
    }

    func testNoUndoDeadlineWhileTheRejectedPhotoStillOwesAnotherDestination() throws {
        var ledger = ledger()
        _ = ledger.apply(.admit(photo(1), offer: nil, now: start, pid: 7))
        _ = decide(&ledger, "photo1", .rejected)
        XCTAssertEqual(
            ledger.apply(.tick(now: start.addingTimeInterval(1))), .answer(.wait(until: nil)),
            "the backup's leg is queued: the photo stays whatever the clock says, and its settling is a change")
    }

    func testARejectionIsUndoneWithinItsWindowAndStandsAfter() throws {
        var ledger = ledger()
        _ = ledger.apply(.admit(photo(1), offer: nil, now: start, pid: 7))
        _ = ledger.apply(.admit(photo(2), offer: nil, now: start, pid: 7))
        _ = decide(&ledger, "photo1", .rejected)
        _ = decide(&ledger, "photo2", .rejected)
        let inTime = start.addingTimeInterval(PhotoLedger.undoWindow - 1)
        XCTAssertEqual(changes(decide(&ledger, "photo1", nil, at: inTime)), ["gallery": .heldAgain, "backup": .unchanged])
        XCTAssertNil(ledger.sidecar("photo1")?.destinations?["A"]?.decidedAt)
        let late = start.addingTimeInterval(PhotoLedger.undoWindow)
        XCTAssertEqual(changes(decide(&ledger, "photo2", nil, at: late)), ["gallery": .tooLate, "backup": .unchanged])
        XCTAssertEqual(ledger.leg("photo2", "A")?.state(at: late), .rejected)
    }

    func testAKeptRejectedPhotoFoundAtStartLeavesAtTheFirstTickAfterItsWindow() throws {
        var entry = photo(1)
        entry.destinations?["A"]?.state = .rejected
        entry.destinations?["A"]?.decidedAt = start
        entry.destinations?["B"]?.state = .delivered
        var ledger = ledger()
        _ = ledger.apply(.found(entry, FoundFiles()))
        XCTAssertNil(finishing(ledger.apply(.started(renditionFiles: [:]))), "decisions are applied first: an undo may still come")
        XCTAssertEqual(finishing(ledger.apply(.tick(now: start.addingTimeInterval(PhotoLedger.undoWindow)))), .delivered)
    }

    func testUndoBeforeSendingHoldsItAgainAndAnUndoneRejectionComesBack() throws {
        var ledger = ledger()
        _ = ledger.apply(.admit(photo(1), offer: nil, now: start, pid: 7))
        _ = ledger.apply(.admit(photo(2), offer: nil, now: start, pid: 7))
        _ = decide(&ledger, "photo1", .approved)
        XCTAssertEqual(changes(decide(&ledger, "photo1", nil)), ["gallery": .heldAgain, "backup": .unchanged])
        XCTAssertEqual(ledger.leg("photo1", "A")?.state(at: start), .held)
        _ = decide(&ledger, "photo2", .rejected)
        XCTAssertEqual(changes(decide(&ledger, "photo2", nil)), ["gallery": .heldAgain, "backup": .unchanged])
        XCTAssertEqual(ledger.sidecar("photo2")?.destinations?["A"]?.state, .queued)
        XCTAssertEqual(changes(decide(&ledger, "photo2", .approved)), ["gallery": .released, "backup": .unchanged])
        XCTAssertNil(changes(decide(&ledger, "photo9", .approved)), "a photo not in the spool: nothing to decide")
    }

    func testARejectionTheSidecarRecordedStandsAtStartUntilADecisionUndoesIt() throws {
        var entry = photo(1)
        entry.destinations?["A"]?.state = .rejected
        var ledger = ledger()
        _ = ledger.apply(.found(entry, FoundFiles()))
        XCTAssertEqual(ledger.leg("photo1", "A")?.state(at: start), .rejected, "no verdict is known yet at start: the record stands")
        XCTAssertEqual(changes(decide(&ledger, "photo1", .rejected)), ["gallery": .unchanged, "backup": .unchanged])
    }

    /// Issue 50: the desk lists the undecided, the approved still on their way, and the
    /// rejected while their rejection can be undone, each with the destinations concerned.
    func testTheDeskListsEachPhotosStateUntilItIsDone() throws {
        var ledger = ledger()
        for number in 1...3 { _ = ledger.apply(.admit(photo(number), offer: nil, now: start, pid: 7)) }
        _ = decide(&ledger, "photo1", .approved)
        _ = decide(&ledger, "photo2", .rejected)
        let desk = ledger.deskPhotos(at: start)
        XCTAssertEqual(desk.map(\.entry.id), ["photo1", "photo2", "photo3"])
        XCTAssertEqual(desk.map(\.state), [.approved, .rejected, .undecided])
        XCTAssertEqual(desk.map(\.destinations), [["gallery"], ["gallery"], ["gallery"]], "the backup never holds photos")
        XCTAssertEqual(desk[1].undoableUntil, start.addingTimeInterval(PhotoLedger.undoWindow))
        let late = start.addingTimeInterval(PhotoLedger.undoWindow)
        XCTAssertEqual(ledger.deskPhotos(at: late).map(\.entry.id), ["photo1", "photo3"], "a rejection too old to undo leaves the desk")
    }

    func testSelectedAndApprovedOrSelectedRules() throws {
        let selected = SpoolDestination(id: "A", label: "gallery", rule: .selected)
        var ledger = ledger([selected, backup])
        _ = ledger.apply(.admit(photo(1, rating: 3), offer: nil, now: start, pid: 7))
        _ = ledger.apply(.admit(photo(2, rating: 0), offer: nil, now: start, pid: 7))
        XCTAssertEqual(claim(&ledger, "A")?.id, "photo1", "a rated photo is selected")
        XCTAssertEqual(ledger.leg("photo2", "A")?.state(at: start), .held)
        XCTAssertEqual(
            changes(decide(&ledger, "photo2", .approved)), ["gallery": .unchanged, "backup": .unchanged], "approval is not selection")
        let either = SpoolDestination(id: "A", label: "gallery", rule: .approvedOrSelected)
        var second = self.ledger([either, backup])
        _ = second.apply(.admit(photo(2, rating: 0), offer: nil, now: start, pid: 7))
        XCTAssertEqual(changes(decide(&second, "photo2", .approved)), ["gallery": .released, "backup": .unchanged])
    }

    func testAHoldingDestinationTakesNoGrowingFiles() {
        XCTAssertFalse(gallery.takesGrowing, "a photo still downloading has had no decision")
        XCTAssertTrue(SpoolDestination(id: "A", label: "gallery", takesGrowing: true).takesGrowing)
    }

    func testAHoldingGalleryLetsTheArchiveNamedAfterItReadTheDownloadInEitherOrder() throws {
        let archive = SpoolDestination(id: "C", label: "archive", takesGrowing: true)
        for order in [[gallery, archive], [archive, gallery]] {
            var ledger = ledger(order)
            var provisional = photo(1)
            provisional.destinations = nil
            _ = ledger.apply(.offer(provisional, offer: 1))
            XCTAssertEqual(
                ledger.apply(.claim(destination: "A", growing: .any, now: start, pid: 7)), .answer(.wait(until: nil)),
                "the gallery holds the photo: it waits for the commit and a decision")
            XCTAssertEqual(
                ledger.apply(.claim(destination: "C", growing: .any, now: start, pid: 7)), .answer(.handOut(.growing(offer: 1))),
                "the archive reads the download, named first or second")
        }
    }

    func testALowPriorityDestinationNeverReadsADownloadAheadOfTheGallery() throws {
        let lowArchive = SpoolDestination(id: "C", label: "archive", lowPriority: true, takesGrowing: true)
        var ledger = ledger([gallery, lowArchive])
        var provisional = photo(1)
        provisional.destinations = nil
        _ = ledger.apply(.offer(provisional, offer: 1))
        XCTAssertEqual(ledger.apply(.claim(destination: "C", growing: .any, now: start, pid: 7)), .answer(.wait(until: nil)))
    }

    func testARenditionOnTheSecondDestinationIsMadeAndSentThereOnly() throws {
        let archive = SpoolDestination(id: "C", label: "archive", rendition: "1024")
        let plain = SpoolDestination(id: "A", label: "gallery")
        var ledger = ledger([plain, archive])
        var entry = photo(1)
        entry.destinations = ["A": DestinationProgress(label: "gallery"), "C": DestinationProgress(label: "archive")]
        _ = ledger.apply(.admit(entry, offer: nil, now: start, pid: 7))
        XCTAssertEqual(claim(&ledger, "A")?.rendition, nil, "the gallery, named first, takes the original at once")
        XCTAssertNil(claim(&ledger, "C"), "the archive waits for its rendition")
        var job: RenditionJob?
        if case .render(let found) = ledger.apply(.claimRendition).answer { job = found }
        XCTAssertNotNil(job, "made although the destination asking for it is not the first")
    }

    func testAHeldLegsRenditionIsMadeWhileItWaits() throws {
        let rendered = SpoolDestination(id: "A", label: "gallery", rendition: "2048", rule: .approved)
        var ledger = ledger([rendered, backup])
        _ = ledger.apply(.admit(photo(1), offer: nil, now: start, pid: 7))
        var job: RenditionJob?
        if case .render(let found) = ledger.apply(.claimRendition).answer { job = found }
        XCTAssertNotNil(job, "the rendition is made before the decision, so an approval sends it at once")
    }

    func testARejectionMadeWhileTheLegWasInFlightHoldsIfTheUploadComesBack() throws {
        var ledger = ledger()
        _ = ledger.apply(.admit(photo(1), offer: nil, now: start, pid: 7))
        _ = decide(&ledger, "photo1", .approved)
        XCTAssertEqual(claim(&ledger, "A")?.id, "photo1")
        XCTAssertEqual(changes(decide(&ledger, "photo1", .rejected)), ["gallery": .alreadySent, "backup": .unchanged])
        _ = ledger.apply(.settle(id: "photo1", destination: "A", .retry(after: 30, error: "HTTP 503", statusCode: 503), now: start))
        XCTAssertEqual(ledger.leg("photo1", "A")?.state(at: start.addingTimeInterval(60)), .rejected, "the retry does not send it")
    }

    func testRejectUndoApproveMakesTheRenditionAgain() throws {
        let rendered = SpoolDestination(id: "A", label: "gallery", rendition: "2048", rule: .approved)
        var ledger = ledger([rendered, backup])
        _ = ledger.apply(.admit(photo(1), offer: nil, now: start, pid: 7))
        var jobs = 0
        if case .render = ledger.apply(.claimRendition).answer { jobs += 1 }
        XCTAssertEqual(jobs, 1)
        _ = ledger.apply(.renditionRecorded(id: "photo1", .made(spec: "2048", photoKey: "photo1", bytes: 10, width: 20, height: 10)))
        _ = ledger.apply(.renditionStored(id: "photo1", spec: "2048", now: start, pid: 7))
        XCTAssertTrue(decide(&ledger, "photo1", .rejected).actions.contains(.removeRendition(id: "photo1", spec: "2048")))
        _ = decide(&ledger, "photo1", nil)
        _ = decide(&ledger, "photo1", .approved)
        XCTAssertNil(claim(&ledger, "A"), "not before its rendition is made again")
        jobs = 0
        if case .render = ledger.apply(.claimRendition).answer { jobs += 1 }
        XCTAssertEqual(jobs, 1, "the rendition the rejection removed is made again")
    }

    func testAHeldLegWaitingForItsRenditionDoesNotHoldBackTheLowPriorityBackup() throws {
        let rendered = SpoolDestination(id: "A", label: "gallery", rendition: "2048", rule: .approved)
        var ledger = ledger([rendered, backup])
        _ = ledger.apply(.admit(photo(1), offer: nil, now: start, pid: 7))
        XCTAssertEqual(claim(&ledger, "B")?.id, "photo1", "the gallery sends nothing before a decision: the backup goes at once")
    }

    func testASelectionNeedsTheStarsItsDestinationAsksFor() throws {
        let threeStars = SpoolDestination(id: "A", label: "gallery", rule: .selected, selection: SelectionPolicy(minRating: 3))
        var ledger = ledger([threeStars, backup])
        _ = ledger.apply(.admit(photo(1, rating: 2), offer: nil, now: start, pid: 7))
        _ = ledger.apply(.admit(photo(2, rating: 3), offer: nil, now: start, pid: 7))
        XCTAssertEqual(ledger.leg("photo1", "A")?.state(at: start), .held, "two stars are not enough here")
        XCTAssertEqual(claim(&ledger, "A")?.id, "photo2")
    }
}
