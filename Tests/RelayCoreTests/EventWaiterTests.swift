import Foundation
import RelayCore
import XCTest

final class EventWaiterTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("waiter-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    func testAWatchedFileWrittenByAnotherThreadEndsTheWait() throws {
        let waiter = try EventWaiter(folder: folder, names: ["review.jsonl"])
        try XCTSkipUnless(waiter.watchesFiles, "no inotify here")
        let journal = folder.appendingPathComponent("review.jsonl")
        let other = folder.appendingPathComponent("other.json")
        Thread.detachNewThread {
            try? Data("other\n".utf8).write(to: other)
            try? Data("line\n".utf8).write(to: journal)
        }
        let reasons = waiter.wait(until: Date().addingTimeInterval(30))
        XCTAssertEqual(reasons, .files, "the journal's write, not the deadline, and not the other file alone")
    }

    func testAWakeEndsTheWaitAndWakesBeforeTheWaitAreNotLost() throws {
        let waiter = try EventWaiter(folder: folder, names: ["review.jsonl"])
        waiter.wake()
        waiter.wake(.files)
        let reasons = waiter.wait(until: Date().addingTimeInterval(30))
        XCTAssertTrue(reasons.contains(.woken))
        XCTAssertTrue(reasons.contains(.files), "the reasons of two wakes before the wait are taken together")
        Thread.detachNewThread { waiter.wake() }
        XCTAssertEqual(waiter.wait(until: Date().addingTimeInterval(30)), .woken)
    }

    func testTheDeadlineEndsAWaitWithNothingElse() throws {
        let waiter = try EventWaiter(folder: folder, names: ["review.jsonl"])
        try XCTSkipUnless(waiter.watchesFiles, "without inotify the files count as changed each second")
        let deadline = Date().addingTimeInterval(0.05)
        XCTAssertEqual(waiter.wait(until: deadline), .deadline)
        XCTAssertGreaterThanOrEqual(Date(), deadline)
    }
}
