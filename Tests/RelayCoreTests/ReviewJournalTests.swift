import Foundation
import RelayCore
import XCTest

/// The review journal: decisions appended durably by several writers, read back in order from
/// where a reader left off, a torn last line skipped, and compaction that keeps what counts.
final class ReviewJournalTests: XCTestCase {
    private var root: URL!
    private var journal: ReviewJournal!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("review-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        journal = ReviewJournal(url: root.appendingPathComponent("review.jsonl"))
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
    }

    func testTheLastDecisionStandsAndUndoTakesItBack() throws {
        try journal.append([ReviewDecision(photo: "a", kind: .approve, by: "t"), ReviewDecision(photo: "b", kind: .reject, by: "t")])
        try journal.append([ReviewDecision(photo: "a", kind: .reject, by: "t"), ReviewDecision(photo: "b", kind: .undo, by: "t")])
        let verdicts = try journal.verdicts()
        XCTAssertEqual(verdicts["a"], .rejected)
        XCTAssertNil(verdicts["b"])
        XCTAssertEqual(verdicts.byPhoto.count, 1)
    }

    /// Issue 50: captions share the journal; compaction keeps each photo's last verdict and
    /// last caption, and a caption is never taken for a verdict.
    func testCaptionsAreKeptBesideTheVerdictAndNeverDecide() throws {
        try journal.append([
            ReviewDecision(photo: "a", caption: try PhotoCaption(caption: "old"), by: "t"),
            ReviewDecision(photo: "a", kind: .approve, by: "t"),
            ReviewDecision(photo: "a", caption: try PhotoCaption(caption: "new", title: "T"), by: "t"),
            ReviewDecision(photo: "b", caption: try PhotoCaption(caption: "gone"), by: "t"),
            ReviewDecision(photo: "c", caption: try PhotoCaption(caption: "only words"), by: "t"),
        ])
        XCTAssertEqual(try journal.verdicts().byPhoto, ["a": .approved])
        XCTAssertEqual(try journal.lastDecisions().map(\.kind), [.approve], "a caption is not a decision to apply")
        try journal.compact(keeping: ["a", "c"])
        let kept = try journal.read().decisions
        XCTAssertEqual(kept.map(\.kind), [.approve, .caption, .caption])
        XCTAssertEqual(
            try journal.captions().byPhoto,
            ["a": try PhotoCaption(caption: "new", title: "T"), "c": try PhotoCaption(caption: "only words")])
        try journal.append([ReviewDecision(photo: "c", caption: try PhotoCaption(caption: " "), by: "t")])
        XCTAssertNil(try journal.captions()["c"], "an empty caption clears it")
    }

    func testAReaderGetsOnlyWhatWasAddedSinceItLastLooked() throws {
        XCTAssertEqual(try journal.read().decisions, [], "no journal yet: no decisions")
        try journal.append([ReviewDecision(photo: "a", kind: .approve, by: "t")])
        let first = try journal.read()
        XCTAssertEqual(first.decisions.map(\.photo), ["a"])
        try journal.append([ReviewDecision(photo: "b", kind: .approve, by: "t")])
        let second = try journal.read(from: first.end)
        XCTAssertEqual(second.decisions.map(\.photo), ["b"])
        XCTAssertEqual(try journal.read(from: second.end).decisions, [])
    }

    func testATornLastLineIsSkippedAndTheNextAppendStartsOnANewLine() throws {
        try journal.append([ReviewDecision(photo: "a", kind: .approve, by: "t")])
        let handle = try FileHandle(forWritingTo: journal.url)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"photo":"b","kind":"appr"#.utf8))
        try handle.close()
        let torn = try journal.read()
        XCTAssertEqual(torn.decisions.map(\.photo), ["a"], "half a decision was never acknowledged")
        try journal.append([ReviewDecision(photo: "c", kind: .reject, by: "t")])
        let after = try journal.read()
        XCTAssertEqual(after.decisions.map(\.photo), ["a", "c"])
        XCTAssertEqual(after.unreadable, 1, "the torn line is counted, not thrown")
    }

    func testCompactionKeepsTheVerdictsOnPhotosStillInTheSpool() throws {
        try journal.append([
            ReviewDecision(photo: "gone", kind: .approve, by: "t"), ReviewDecision(photo: "kept", kind: .reject, by: "editor"),
            ReviewDecision(photo: "kept", kind: .approve, by: "editor"), ReviewDecision(photo: "undone", kind: .approve, by: "t"),
            ReviewDecision(photo: "undone", kind: .undo, by: "t"),
        ])
        try journal.compact(keeping: ["kept", "undone"])
        let read = try journal.read()
        XCTAssertEqual(read.decisions.map(\.photo), ["kept", "undone"], "the last decision on each photo still in the spool")
        XCTAssertEqual(read.decisions.map(\.kind), [.approve, .undo], "an undo is kept: a run applies it at its start")
        XCTAssertEqual(read.decisions.first?.by, "editor")
        XCTAssertEqual(try journal.verdicts()["kept"], .approved)
        XCTAssertNil(try journal.verdicts()["undone"])
    }

    func testAJournalWithALineItCannotReadIsNeverRewritten() throws {
        try journal.append([ReviewDecision(photo: "gone", kind: .approve, by: "t")])
        let handle = try FileHandle(forWritingTo: journal.url)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("a note somebody typed\n".utf8))
        try handle.close()
        let before = try Data(contentsOf: journal.url)
        try journal.compact(keeping: [])
        XCTAssertEqual(try Data(contentsOf: journal.url), before, "left exactly as it was")
    }

    func testWritersAtOnceLoseNoDecision() throws {
        let writers = 4
        let each = 50
        let journal = self.journal!
        DispatchQueue.concurrentPerform(iterations: writers) { writer in
            for number in 0..<each {
                try? journal.append([ReviewDecision(photo: "\(writer)-\(number)", kind: .approve, by: "w\(writer)")])
            }
        }
        XCTAssertEqual(try journal.verdicts().byPhoto.count, writers * each)
    }

    func testEachRuleSendsHoldsOrRejects() {
        XCTAssertEqual(SendRule.all.fate(verdict: .rejected, selected: false), .send, "all ignores decisions")
        XCTAssertEqual(SendRule.approved.fate(verdict: nil, selected: true), .held)
        XCTAssertEqual(SendRule.approved.fate(verdict: .approved, selected: false), .send)
        XCTAssertEqual(SendRule.approved.fate(verdict: .rejected, selected: false), .rejected)
        XCTAssertEqual(SendRule.selected.fate(verdict: nil, selected: true), .send)
        XCTAssertEqual(SendRule.selected.fate(verdict: .approved, selected: false), .held)
        XCTAssertEqual(SendRule.approvedOrSelected.fate(verdict: nil, selected: true), .send)
        XCTAssertEqual(SendRule.approvedOrSelected.fate(verdict: .approved, selected: false), .send)
        XCTAssertEqual(SendRule.approvedOrSelected.fate(verdict: .rejected, selected: false), .rejected)
    }
}
