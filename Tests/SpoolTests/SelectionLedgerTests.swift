import Foundation
import RelayCore
import Spool
import XCTest

/// The photographer's selection in the camera, learnt after a photo came in (issue 41): it
/// releases the legs whose rule is `selected`, a withdrawn one holds them again before they
/// were sent, and nothing changes once they were.
final class SelectionLedgerTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)
    private let gallery = SpoolDestination(id: "A", label: "gallery", rule: .selected)
    private let backup = SpoolDestination(id: "B", label: "backup", lowPriority: true)

    private func admitted(_ destinations: [SpoolDestination], _ selection: PhotoSelection = PhotoSelection()) -> PhotoLedger {
        var ledger = PhotoLedger(destinations: SpoolDestinations(destinations))
        var entry = SpoolEntry(
            id: "p1", sequence: 1, source: "test", cameraFileName: "IMG_0001.JPG", uploadName: "IMG_0001.JPG", bytes: 1_000,
            capturedAt: now, spooledAt: now, idempotencyKey: "p1")
        entry.selection = selection
        entry.destinations = Dictionary(uniqueKeysWithValues: destinations.map { ($0.id, DestinationProgress(label: $0.label)) })
        _ = ledger.apply(.admit(entry, offer: nil, now: now, pid: 7))
        return ledger
    }

    private func select(_ ledger: inout PhotoLedger, _ selection: PhotoSelection) -> (
        changes: [String: PhotoLedger.Decision.Change], actions: [PhotoLedger.Action]
    ) {
        let step = ledger.apply(.select(id: "p1", selection, now: now))
        guard case .decided(let decisions?) = step.answer else { return ([:], step.actions) }
        return (Dictionary(uniqueKeysWithValues: decisions.map { ($0.label, $0.change) }), step.actions)
    }

    private func claim(_ ledger: inout PhotoLedger, _ destination: String) -> String? {
        if case .handOut(.spooled(let entry)) = ledger.apply(.claim(destination: destination, growing: .none, now: now, pid: 7)).answer {
            return entry.id
        }
        return nil
    }

    func testAProtectionLearntLaterReleasesTheHeldLegAndIsKeptInTheSidecar() throws {
        var ledger = admitted([gallery, backup])
        XCTAssertEqual(ledger.leg("p1", "A")?.state(at: now), .held)
        let (changes, actions) = select(&ledger, PhotoSelection(protected: true))
        XCTAssertEqual(changes, ["gallery": .released, "backup": .unchanged])
        XCTAssertTrue(actions.contains(.saveSidecar(id: "p1")))
        XCTAssertEqual(ledger.sidecar("p1")?.protected, true)
        XCTAssertEqual(claim(&ledger, "A"), "p1")
    }

    func testAWithdrawnSelectionHoldsTheLegAgainBeforeItWasSent() throws {
        var ledger = admitted([gallery, backup], PhotoSelection(rating: 3))
        XCTAssertEqual(ledger.leg("p1", "A")?.state(at: now), .queued, "three stars in the file select it at intake")
        XCTAssertEqual(select(&ledger, PhotoSelection(rating: 0)).changes, ["gallery": .heldAgain, "backup": .unchanged])
        XCTAssertNil(claim(&ledger, "A"), "held again: the gallery gets nothing")
        XCTAssertEqual(ledger.sidecar("p1")?.rating, 0)
    }

    func testAWithdrawnSelectionAfterTheSendChangesNothingAndSaysSo() throws {
        var ledger = admitted([gallery, backup], PhotoSelection(protected: true))
        XCTAssertEqual(claim(&ledger, "A"), "p1")
        XCTAssertEqual(select(&ledger, PhotoSelection()).changes, ["gallery": .alreadySent, "backup": .unchanged], "in flight")
        _ = ledger.apply(.settle(id: "p1", destination: "A", .delivered, now: now))
        XCTAssertEqual(select(&ledger, PhotoSelection(protected: true)).changes, ["gallery": .alreadySent, "backup": .unchanged])
    }

    func testTheSameMarksAgainChangeNothing() throws {
        var ledger = admitted([gallery, backup], PhotoSelection(protected: true))
        let (changes, actions) = select(&ledger, PhotoSelection(protected: true))
        XCTAssertEqual(changes, [:])
        XCTAssertFalse(actions.contains(.saveSidecar(id: "p1")), "nothing to write")
    }

    func testProtectionSelectsOnlyWhereItCountsAndATransferRequestEverywhere() throws {
        let starsOnly = SpoolDestination(
            id: "C", label: "stars only", rule: .selected, selection: SelectionPolicy(minRating: 2, protectionCounts: false))
        var ledger = admitted([gallery, starsOnly, backup])
        XCTAssertEqual(
            select(&ledger, PhotoSelection(rating: 1, protected: true)).changes,
            ["gallery": .released, "stars only": .unchanged, "backup": .unchanged])
        XCTAssertEqual(
            select(&ledger, PhotoSelection(rating: 1, protected: true, requested: true)).changes,
            ["gallery": .unchanged, "stars only": .released, "backup": .unchanged], "the transfer button asks for it")
    }

    func testAPersonsRejectionStandsWhateverTheCameraSays() throws {
        let either = SpoolDestination(id: "A", label: "gallery", rule: .approvedOrSelected)
        var ledger = admitted([either, backup])
        _ = ledger.apply(.decide(id: "p1", verdict: .rejected, now: now))
        XCTAssertEqual(select(&ledger, PhotoSelection(rating: 5)).changes, ["gallery": .unchanged, "backup": .unchanged])
        XCTAssertEqual(ledger.leg("p1", "A")?.state(at: now), .rejected)
    }

    func testAPhotoThatLeftTheSpoolIsNotFound() throws {
        var ledger = PhotoLedger(destinations: SpoolDestinations([gallery]))
        XCTAssertEqual(ledger.apply(.select(id: "gone", PhotoSelection(protected: true), now: now)), .answer(.decided(nil)))
    }

    func testWhatSelectsAPhoto() {
        let policy = SelectionPolicy(minRating: 3)
        XCTAssertFalse(PhotoSelection(rating: 2).selects(policy))
        XCTAssertTrue(PhotoSelection(rating: 3).selects(policy))
        XCTAssertFalse(PhotoSelection(rating: -1).selects(policy), "rejected in the camera")
        XCTAssertTrue(PhotoSelection(protected: true).selects(policy))
        XCTAssertFalse(PhotoSelection(protected: true).selects(SelectionPolicy(protectionCounts: false)))
        XCTAssertEqual(PhotoSelection(rating: 3, protected: true).marks, "★★★ protected")
        XCTAssertEqual(PhotoSelection().marks, "")
    }
}
