import Foundation
import RunEvents
import XCTest

final class RunEventBusTests: XCTestCase {
    final class Collector: @unchecked Sendable {
        private let lock = NSLock()
        private var seen: [TimedEvent] = []
        func add(_ event: TimedEvent) { lock.withLock { seen.append(event) } }
        var events: [RunEvent] { lock.withLock { seen.map(\.event) } }
    }

    func testEveryObserverSeesEveryEventInOrderAndAnObserverMayPublish() {
        let bus = RunEventBus()
        let first = Collector()
        let second = Collector()
        bus.subscribe { event in
            first.add(event)
            if case .run(.notice("ping", _)) = event.event { bus.publish(.run(.notice("pong", .info))) }
        }
        bus.subscribe(second.add)
        bus.publish(.run(.notice("ping", .info)))
        bus.publish(.run(.notice("after", .info)))
        XCTAssertTrue(bus.flush(until: Date().addingTimeInterval(10)))
        // "pong" is published while "ping" is delivered, so it follows "ping"; "after" may come
        // before or after it, but every observer sees one and the same order.
        XCTAssertEqual(first.events.count, 3)
        XCTAssertEqual(first.events.first, .run(.notice("ping", .info)))
        XCTAssertEqual(Set(first.events.map { "\($0)" }).count, 3)
        XCTAssertEqual(second.events, first.events)
    }

    func testManyPublishersLoseNothingAndObserversNeverOverlap() {
        let bus = RunEventBus()
        let seen = Collector()
        let inside = NSLock()
        let overlaps = Collector()
        bus.subscribe { event in
            if !inside.try() {
                overlaps.add(event)
                return
            }
            seen.add(event)
            inside.unlock()
        }
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<500 { bus.publish(.capture(.fired(shot: index, of: thread, busyRetries: 0))) }
        }
        bus.flush()
        XCTAssertEqual(overlaps.events.count, 0)
        XCTAssertEqual(seen.events.count, 4000)
        for thread in 0..<8 {
            let shots = seen.events.compactMap { event -> Int? in
                if case .capture(.fired(let shot, thread, _)) = event { return shot }
                return nil
            }
            XCTAssertEqual(shots, Array(0..<500), "thread \(thread)'s events arrive in the order it published them")
        }
    }

    func testAnObserverThatBlocksHoldsUpNeitherPublishersNorOtherObserversAndLearnsWhatItLost() {
        let bus = RunEventBus()
        let release = DispatchSemaphore(value: 0)
        let blockedOnFirst = DispatchSemaphore(value: 0)
        let slow = Collector()
        let fast = Collector()
        bus.subscribe(capacity: 10) { event in
            if slow.events.isEmpty {
                blockedOnFirst.signal()
                release.wait()
            }
            slow.add(event)
        }
        bus.subscribe(fast.add)
        bus.publish(.run(.notice("first", .info)))
        XCTAssertEqual(blockedOnFirst.wait(timeout: .now() + 10), .success, "the slow observer got the first event")
        // The slow observer is stuck inside its first event: 100 more go past it.
        for index in 0..<100 { bus.publish(.capture(.fired(shot: index, of: 100, busyRetries: 0))) }
        XCTAssertTrue(bus.flush(until: Date().addingTimeInterval(0.2)) == false, "flush gives up on a stuck observer")
        XCTAssertEqual(fast.events.count, 101, "the other observer got everything while the slow one was stuck")
        release.signal()
        XCTAssertTrue(bus.flush(until: Date().addingTimeInterval(10)))
        let events = slow.events
        XCTAssertEqual(events.first, .run(.notice("first", .info)))
        XCTAssertEqual(events.dropFirst().first, .run(.dropped(count: 90)), "told how many it lost, before the rest")
        let shots = events.compactMap { event -> Int? in
            if case .capture(.fired(let shot, _, _)) = event { return shot }
            return nil
        }
        XCTAssertEqual(shots, Array(90..<100), "it kept the newest events, in order")
        XCTAssertEqual(RunEvent.run(.dropped(count: 90)).jsonType, "dropped")
    }

    func testBoundedQueueDropsTheOldestAndCountsThem() {
        var queue = BoundedQueue<Int>(capacity: 3)
        for item in 1...10 { queue.push(item) }
        XCTAssertEqual(queue.count, 3)
        let taken = queue.takeAll()
        XCTAssertEqual(taken.items, [8, 9, 10])
        XCTAssertEqual(taken.dropped, 7)
        XCTAssertTrue(queue.isEmpty)
        queue.push(11)
        XCTAssertEqual(queue.takeAll().dropped, 0, "the count starts again after a take")
    }

    func testBatteryDrainingTo15PercentWarnsExactlyOnce() {
        let bus = RunEventBus()
        let seen = Collector()
        bus.subscribe(seen.add)
        let report = bus.reporter(for: "camera a")
        for percent in stride(from: 40, through: 15, by: -1) { report(.battery(percent: percent)) }
        report(.battery(percent: 21))
        report(.battery(percent: 19))
        bus.flush()
        let warnings = seen.events.filter { if case .source("camera a", .batteryLow) = $0 { true } else { false } }
        XCTAssertEqual(warnings, [.source("camera a", .batteryLow(percent: 20))])
        let line = EventSentence().line(for: warnings[0])
        XCTAssertEqual(line, "camera battery at 20 %: charge or swap it soon")
    }

    func testAFreshBatteryOrCardArmsTheWarningAgainAndCamerasAreapart() {
        var watch = LowResourceWatch()
        func feed(_ source: String, _ event: SourceEvent) -> [RunEvent] {
            watch.derive(from: TimedEvent(.source(source, event))).map(\.event)
        }
        XCTAssertEqual(feed("a", .battery(percent: 20)), [.source("a", .batteryLow(percent: 20))])
        XCTAssertEqual(feed("b", .battery(percent: 12)), [.source("b", .batteryLow(percent: 12))])
        XCTAssertEqual(feed("a", .battery(percent: 25)), [])
        XCTAssertEqual(feed("a", .battery(percent: 18)), [], "a level wobbling near 20 % warns once")
        XCTAssertEqual(feed("a", .battery(percent: 100)), [])
        XCTAssertEqual(feed("a", .battery(percent: 20)), [.source("a", .batteryLow(percent: 20))], "a fresh battery warns again")
        XCTAssertEqual(feed("a", .card(CardSpace(freeBytes: nil, freeShots: 100))), [])
        XCTAssertEqual(feed("a", .card(CardSpace(freeBytes: nil, freeShots: 99))), [.source("a", .cardLow(shots: 99))])
        XCTAssertEqual(feed("a", .card(CardSpace(freeBytes: nil, freeShots: 40))), [])
        XCTAssertEqual(feed("a", .card(CardSpace(freeBytes: 1_000_000, freeShots: nil))), [], "bytes alone say nothing of shots")
    }
}
