import Spool
import XCTest

/// The pure rules of a photo's destinations: decided when it is taken, never forgotten by a run
/// that delivers to fewer, released only when asked.
final class PhotoDestinationsTests: XCTestCase {
    private let gallery = SpoolDestination(id: "A", label: "gallery")
    private let backup = SpoolDestination(id: "B", label: "backup")

    private func progress(_ state: DestinationProgress.State, _ label: String, error: String? = nil) -> DestinationProgress {
        var progress = DestinationProgress(label: label, state: state)
        progress.lastError = error
        return progress
    }

    /// What a run that finds `recorded` at start hands its destination `destination`, and
    /// whether the photo stays in the spool.
    private func found(_ recorded: [String: DestinationProgress]?, run: [SpoolDestination]) -> PhotoLedger {
        var ledger = PhotoLedger(destinations: SpoolDestinations(run))
        var entry = SpoolEntry(
            id: "p", sequence: 1, source: "test", cameraFileName: "1.JPG", uploadName: "1.JPG", bytes: 1, capturedAt: Date(),
            spooledAt: Date(), idempotencyKey: "p")
        entry.destinations = recorded
        _ = ledger.apply(.found(entry, FoundFiles()))
        XCTAssertEqual(ledger.apply(.started(renditionFiles: [:])), [], "a photo a destination still waits for stays")
        return ledger
    }

    private func claims(_ ledger: inout PhotoLedger, _ destination: String) -> Bool {
        if case .handOut = ledger.apply(.claim(destination: destination, growing: .none, now: Date(), pid: 1)).answer { return true }
        return false
    }

    func testAPhotoTakenForTwoKeepsBothWhenARunDeliversToOne() {
        let recorded = ["A": progress(.delivered, "gallery"), "B": progress(.queued, "backup")]
        var inA = found(recorded, run: [gallery])
        XCTAssertEqual(inA.entry("p")?.destinations, recorded, "the backup is not dropped by a run without it")
        XCTAssertFalse(claims(&inA, "A"), "the gallery has it: not sent again")
        var inB = found(recorded, run: [backup])
        XCTAssertTrue(claims(&inB, "B"), "a run that delivers to the backup sends it there")
    }

    func testARunDoesNotTakeOverAPhotoThatWasNotTakenForIt() {
        let recorded = ["A": progress(.queued, "gallery")]
        var inB = found(recorded, run: [backup])
        XCTAssertEqual(inB.entry("p")?.destinations, recorded)
        XCTAssertFalse(claims(&inB, "B"))
    }

    func testAnOlderSidecarTakesTheDestinationsOfTheRunThatFindsIt() {
        var both = found(nil, run: [gallery, backup])
        XCTAssertEqual(both.entry("p")?.destinations?.keys.sorted(), ["A", "B"])
        XCTAssertTrue(both.entry("p")?.destinations?.values.allSatisfy { $0.state == .queued } ?? false)
        XCTAssertTrue(claims(&both, "A"))
        XCTAssertTrue(claims(&both, "B"))
    }

    func testSettlement() {
        XCTAssertEqual(
            PhotoDestinations.settlement(["A": progress(.delivered, "gallery"), "B": progress(.delivered, "backup")]), .delivered)
        XCTAssertEqual(
            PhotoDestinations.settlement(["A": progress(.failed, "gallery", error: "HTTP 400")]),
            .refused(reason: "HTTP 400", statusCode: nil), "one destination keeps its own words")
        XCTAssertEqual(
            PhotoDestinations.settlement(["A": progress(.delivered, "gallery"), "B": progress(.failed, "backup", error: "530")]),
            .refused(reason: "backup: 530", statusCode: nil))
        XCTAssertEqual(PhotoDestinations.settlement(["A": progress(.failed, "gallery"), "B": progress(.queued, "backup")]), .waiting)
        XCTAssertEqual(PhotoDestinations.settlement([:]), .delivered)
    }

    func testReleasingADestinationForgetsOnlyWhatStillWaitsForIt() {
        let map = ["A": progress(.delivered, "gallery"), "B1234567-X": progress(.queued, "backup")]
        XCTAssertEqual(PhotoDestinations.release(map, matching: "b1234567")?.keys.sorted(), ["A"], "an id prefix, case aside")
        XCTAssertEqual(PhotoDestinations.release(map, matching: "Backup")?.keys.sorted(), ["A"], "or the label")
        XCTAssertNil(PhotoDestinations.release(map, matching: "gallery"), "the gallery waits for nothing: nothing to release")
        XCTAssertNil(PhotoDestinations.release(map, matching: ""), "an empty name names nothing")
    }

    func testARetryQueuesOnlyTheDestinationsThatRefusedAndThoseNamed() {
        let map = [
            "A": progress(.delivered, "gallery"), "B1234567-X": progress(.failed, "backup"), "C": progress(.failed, "nas"),
        ]
        let all = PhotoDestinations.retry(map, matching: nil)
        XCTAssertEqual(all?.mapValues(\.state), ["A": .delivered, "B1234567-X": .queued, "C": .queued], "the delivery stands")
        XCTAssertEqual(PhotoDestinations.retry(map, matching: "b1234567")?.mapValues(\.state)["C"], .failed, "an id prefix")
        XCTAssertEqual(PhotoDestinations.retry(map, matching: "NAS")?.mapValues(\.state)["C"], .queued, "or the label, case aside")
        XCTAssertNil(PhotoDestinations.retry(map, matching: "gallery"), "the gallery refused nothing")
        XCTAssertNil(PhotoDestinations.retry(["A": progress(.delivered, "gallery")], matching: nil))
    }

    func testWaitingCountsPhotosPerDestinationOutsideTheRun() {
        let photos: [(name: String, map: [String: DestinationProgress])] = [
            ("1.JPG", ["A": progress(.delivered, "gallery"), "B": progress(.queued, "backup")]),
            ("2.JPG", ["A": progress(.queued, "gallery"), "B": progress(.queued, "backup"), "C": progress(.queued, "nas")]),
            ("3.JPG", ["A": progress(.queued, "gallery"), "B": progress(.failed, "backup")]),
        ]
        let waiting = PhotoDestinations.waiting(photos, outside: ["A"])
        XCTAssertEqual(
            waiting,
            [
                WaitingDestination(id: "B", label: "backup", photos: ["1.JPG", "2.JPG"]),
                WaitingDestination(id: "C", label: "nas", photos: ["2.JPG"]),
            ])
        XCTAssertEqual(PhotoDestinations.waiting(photos, outside: ["A", "B", "C"]), [])
    }
}
