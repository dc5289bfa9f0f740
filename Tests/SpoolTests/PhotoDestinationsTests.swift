import Spool
import XCTest

/// The pure rules of a photo's destinations: decided when it is taken, never forgotten by a run
/// that delivers to fewer, released only when asked.
final class PhotoDestinationsTests: XCTestCase {
    private let both = SpoolDestinations(
        primary: .init(id: "A", label: "gallery", lowPriority: false),
        others: [.init(id: "B", label: "backup", lowPriority: false)])
    private let onlyA = SpoolDestinations(primary: .init(id: "A", label: "gallery", lowPriority: false), others: [])
    private let onlyB = SpoolDestinations(primary: .init(id: "B", label: "backup", lowPriority: false), others: [])

    private func progress(_ state: DestinationProgress.State, _ label: String, error: String? = nil) -> DestinationProgress {
        var progress = DestinationProgress(label: label, state: state)
        progress.lastError = error
        return progress
    }

    func testAPhotoTakenForTwoKeepsBothWhenARunDeliversToOne() {
        let recorded = ["A": progress(.delivered, "gallery"), "B": progress(.queued, "backup")]
        let inA = PhotoDestinations.resume(recorded, run: onlyA)
        XCTAssertEqual(inA.map, recorded, "the backup is not dropped by a run without it")
        XCTAssertFalse(inA.forPrimary, "the gallery has it: not sent again")
        XCTAssertFalse(inA.adopted)
        XCTAssertEqual(PhotoDestinations.settlement(inA.map), .waiting, "it stays for the backup")

        let inB = PhotoDestinations.resume(recorded, run: onlyB)
        XCTAssertTrue(inB.forPrimary, "a run that delivers to the backup sends it there")
    }

    func testARunDoesNotTakeOverAPhotoThatWasNotTakenForIt() {
        let recorded = ["A": progress(.queued, "gallery")]
        let inB = PhotoDestinations.resume(recorded, run: onlyB)
        XCTAssertEqual(inB.map, recorded)
        XCTAssertFalse(inB.forPrimary)
    }

    func testAnOlderSidecarTakesTheDestinationsOfTheRunThatFindsIt() {
        let resumed = PhotoDestinations.resume(nil, run: both)
        XCTAssertTrue(resumed.adopted)
        XCTAssertTrue(resumed.forPrimary)
        XCTAssertEqual(resumed.map.keys.sorted(), ["A", "B"])
        XCTAssertTrue(resumed.map.values.allSatisfy { $0.state == .queued })
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
