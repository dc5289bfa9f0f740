import Foundation
import RelayCore
import XCTest

@testable import Rendition

/// The order pictures are made in: the delivery's renditions before any page work, oldest first;
/// the pages' newest first, the oldest waiting turned away past the bound; background work never
/// turned away; the same keyed picture asked twice at once made once. First as the pure queue,
/// then with threads, each step awaited as an event with a deadline.
final class PicturePoolTests: XCTestCase {
    func testDeliveriesGoFirstOldestFirstAndPagesNewestFirst() {
        var queue = PictureQueue(slots: 1, pageLimit: 8)
        XCTAssertEqual(queue.arrive(1, .page).granted, [1])
        for (ticket, work) in [(2, PictureQueue.Work.page), (3, .delivery), (4, .page), (5, .delivery), (6, .background)] {
            XCTAssertEqual(queue.arrive(ticket, work), PictureQueue.Turn(), "the one slot is taken")
        }
        let order = [1, 3, 5, 6, 4].map { queue.finish($0).granted }
        XCTAssertEqual(order, [[3], [5], [6], [4], [2]])
        XCTAssertFalse(queue.isWaiting)
    }

    func testTheOldestWaitingPageIsTurnedAwayButNeverBackgroundWork() {
        var queue = PictureQueue(slots: 1, pageLimit: 2)
        XCTAssertEqual(queue.arrive(0, .delivery).granted, [0])
        XCTAssertEqual(queue.arrive(1, .page).turnedAway, [])
        XCTAssertEqual(queue.arrive(2, .background).turnedAway, [])
        XCTAssertEqual(queue.arrive(3, .page).turnedAway, [])
        XCTAssertEqual(queue.arrive(4, .page).turnedAway, [1])
        XCTAssertEqual(queue.arrive(5, .page).turnedAway, [3])
        XCTAssertEqual(queue.pages.map(\.ticket), [2, 4, 5])
        XCTAssertEqual(queue.arrive(6, .delivery).granted, [], "a delivery waits for the slot too")
        XCTAssertEqual([0, 6, 5, 4].map { queue.finish($0).granted }, [[6], [5], [4], [2]])
    }

    func testAsManyRunAsThereAreSlots() {
        var queue = PictureQueue(slots: 2, pageLimit: 2)
        XCTAssertEqual((1...3).map { queue.arrive($0, .page).granted }, [[1], [2], []])
        XCTAssertEqual(queue.running, [1, 2])
        XCTAssertEqual(queue.finish(2).granted, [3])
        XCTAssertEqual(PictureQueue(slots: 0, pageLimit: 0).slots, 1, "at least one slot")
    }

    func testThreadsAreGrantedInTheQueuesOrder() throws {
        let pool = PicturePool(slots: 1, pageLimit: 4)
        let run = Threads()
        let gate = Gate()
        run.start("holder") { try? pool.page { gate.wait() } }
        try reach(pool) { queue, _ in queue.running.count == 1 }
        run.start("old page") { _ = try? pool.page { run.record("old page") } }
        try reach(pool) { queue, _ in queue.pages.count == 1 }
        run.start("delivery") { pool.delivery { run.record("delivery") } }
        try reach(pool) { queue, _ in queue.deliveries.count == 1 }
        run.start("background") { pool.background { run.record("background") } }
        try reach(pool) { queue, _ in queue.pages.count == 2 }
        run.start("new page") { _ = try? pool.page { run.record("new page") } }
        try reach(pool) { queue, _ in queue.pages.count == 3 }
        gate.open()
        try run.join()
        XCTAssertEqual(run.order, ["delivery", "new page", "background", "old page"])
    }

    func testTheOldestPageIsTurnedAwayBusy() throws {
        let pool = PicturePool(slots: 1, pageLimit: 1)
        let run = Threads()
        let gate = Gate()
        run.start("holder") { pool.delivery { gate.wait() } }
        try reach(pool) { queue, _ in queue.running.count == 1 }
        run.start("old") {
            do { try pool.page { run.record("old made") } } catch { run.record("old \(error)") }
        }
        try reach(pool) { queue, _ in queue.pages.count == 1 }
        run.start("new") { _ = try? pool.page { run.record("new made") } }
        try run.wait { $0.count == 1 }
        XCTAssertEqual(run.order, ["old \(PicturePool.Busy())"], "turned away before the slot was free")
        gate.open()
        try run.join()
        XCTAssertEqual(run.order.last, "new made")
    }

    func testTheSamePictureAskedTwiceAtOnceIsMadeOnce() throws {
        let pool = PicturePool(slots: 1, pageLimit: 4)
        let run = Threads()
        let gate = Gate()
        let made = LockedBox(0)
        run.start("holder") { pool.delivery { gate.wait() } }
        try reach(pool) { queue, _ in queue.running.count == 1 }
        for name in ["first", "second"] {
            run.start(name) {
                let value = try? pool.page(key: "view/p1/1280") {
                    made.withLockedValue { $0 += 1 }
                    return [UInt8](repeating: 7, count: 3)
                }
                run.record("\(name) \(value ?? [])")
            }
            try reach(pool) { queue, joined in queue.pages.count + joined == (name == "first" ? 1 : 2) }
        }
        XCTAssertEqual(pool.queue.pages.count, 1, "the second waits for the first, not for a slot")
        gate.open()
        try run.join()
        XCTAssertEqual(made.current, 1)
        XCTAssertEqual(Set(run.order), ["first [7, 7, 7]", "second [7, 7, 7]"])
        XCTAssertEqual(try pool.page(key: "view/p1/1280") { [UInt8]() }, [], "once made, the key is free again")
    }

    /// Waits (10 s at most) until the pool's queue satisfies `condition`.
    private func reach(_ pool: PicturePool, _ condition: (PictureQueue, Int) -> Bool) throws {
        guard pool.wait(until: Date().addingTimeInterval(10), for: condition) else {
            throw Timeout(description: "after 10 s the pool was not there: \(pool.queue)")
        }
    }
}

/// Threads a test starts, what they record in order, and a join with a deadline.
private final class Threads: Sendable {
    private let state = LockedBox((order: [String](), running: 0))

    func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
        state.change { $0.running += 1 }
        let thread = Thread { [self] in
            body()
            state.change { $0.running -= 1 }
        }
        thread.name = name
        thread.start()
    }

    func record(_ event: String) {
        state.change { $0.order.append(event) }
    }

    var order: [String] { state.withLockedValue(\.order) }

    /// Waits (10 s at most) until every thread ended.
    func join() throws {
        try wait(until: { $0.running == 0 })
    }

    /// Waits (10 s at most) until what the threads recorded satisfies `condition`.
    func wait(_ condition: @escaping ([String]) -> Bool) throws {
        try wait(until: { condition($0.order) })
    }

    private func wait(until condition: ((order: [String], running: Int)) -> Bool) throws {
        let deadline = Date().addingTimeInterval(10)
        let done = state.wait { state -> LockedWait<Bool> in
            condition(state) ? .ready(true) : Date() >= deadline ? .ready(false) : .until(deadline)
        }
        if !done { throw Timeout(description: "after 10 s the threads had recorded \(order)") }
    }
}

/// A wait in a test that did not end in time.
private struct Timeout: Error, CustomStringConvertible {
    var description: String
}

/// A door a thread waits at until the test opens it.
private final class Gate: Sendable {
    private let opened = LockedBox(false)

    func wait() {
        opened.wait { $0 ? .ready(()) : .until(nil) }
    }

    func open() { opened.change { $0 = true } }
}
