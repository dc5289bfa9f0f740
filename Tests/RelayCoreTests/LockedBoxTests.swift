import Foundation
import RelayCore
import XCTest

/// The one lock toolkit: a waiter wakes on a change, asks again at the time it named, and a
/// change made while nobody waits is seen by the next waiter at once.
final class LockedBoxTests: XCTestCase {
    func testAWaiterWakesOnAChangeAndNotBefore() {
        let box = LockedBox(0)
        let woke = LockedBox<Int?>(nil)
        let waiting = LockedBox(false)
        let thread = Thread {
            let seen = box.wait { value -> LockedWait<Int> in
                waiting.change { $0 = true }
                return value >= 3 ? .ready(value) : .until(nil)
            }
            woke.change { $0 = seen }
        }
        thread.start()
        // The waiter has looked once (and found nothing) before the value moves.
        waiting.wait { $0 ? .ready(()) : .until(nil) }
        box.change { $0 = 1 }
        box.change { $0 = 3 }
        let seen = woke.wait { woke -> LockedWait<Int?> in woke.map { .ready($0) } ?? .until(Date().addingTimeInterval(10)) }
        XCTAssertEqual(seen, 3)
    }

    func testAWaiterIsAskedAgainAtTheTimeItNamed() {
        let box = LockedBox("unchanged")
        let deadline = Date().addingTimeInterval(0.2)
        var asked = 0
        let result = box.wait { _ -> LockedWait<Bool> in
            asked += 1
            return Date() >= deadline ? .ready(true) : .until(deadline)
        }
        XCTAssertTrue(result)
        XCTAssertGreaterThanOrEqual(Date(), deadline)
        XCTAssertGreaterThanOrEqual(asked, 2, "asked once at once, again at the deadline")
    }

    func testAStopFlagCutsASleepShort() {
        let stop = StopFlag()
        let started = Date()
        Thread.detachNewThread { stop.stop() }
        XCTAssertTrue(stop.sleep(30), "woken by the stop")
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        XCTAssertNotNil(stop.secondsSinceStop)
        XCTAssertTrue(stop.sleep(30), "already stopped: at once")
        XCTAssertFalse(StopFlag().sleep(0.05), "not stopped: the whole sleep")
    }
}
