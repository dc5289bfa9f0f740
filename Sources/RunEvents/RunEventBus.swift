import Dispatch
import Foundation
import RelayCore

/// Hands every published event to every observer, in one order, one event at a time, without
/// ever making a publisher wait for an observer.
///
/// Publishers are many threads (sources, upload workers, the rendition stage, the capture
/// controller). Each observer has its own bounded queue and is called from its own serial
/// dispatch queue: it sees events one at a time, in the order they were published, and needs no
/// lock of its own for what it keeps. A publisher only appends to those queues, so an observer
/// that blocks (a `--json` reader that stopped reading) holds up nothing but itself: once its
/// queue is full it loses its oldest events and is then handed `.run(.dropped(count:))` before the
/// next one. An observer may publish.
public final class RunEventBus: Sendable {
    /// Sees each event once, after the bus's own rules (the low battery and card warnings).
    public typealias Observer = @Sendable (TimedEvent) -> Void

    /// How many events an observer may fall behind before it loses the oldest.
    public static let defaultCapacity = 4096

    private struct Routing {
        var inline: [Observer] = []
        var queues: [ObserverQueue] = []
        var watch = LowResourceWatch()
    }

    private let routing = LockedBox(Routing())
    private let outstanding = Outstanding()

    public init() {}

    /// Adds an observer for every event published from now on; it may fall `capacity` events
    /// behind before it loses the oldest.
    public func subscribe(capacity: Int = RunEventBus.defaultCapacity, _ observer: @escaping Observer) {
        let queue = ObserverQueue(observer: observer, capacity: capacity, outstanding: outstanding)
        routing.withLockedValue { $0.queues.append(queue) }
    }

    /// Adds an observer that is called on the publishing thread, in the one order, before the
    /// publisher goes on: for one that must act on an event before anything can follow it (the
    /// status page opens a spooled photo before it can be delivered and removed) or whose state
    /// a reader expects current (the run's totals). It must be quick, never block and never
    /// publish.
    public func subscribeInline(_ observer: @escaping Observer) {
        routing.withLockedValue { $0.inline.append(observer) }
    }

    /// Publishes `event`, stamped now.
    public func publish(_ event: RunEvent) {
        publish(TimedEvent(at: Date(), event))
    }

    public func publish(_ event: TimedEvent) {
        // Under the routing lock, so that every observer gets the events of all publishers in
        // one order; appending to a queue never waits for its observer.
        routing.withLockedValue { routing in
            let events = [event] + routing.watch.derive(from: event)
            for event in events {
                for observer in routing.inline { observer(event) }
            }
            for queue in routing.queues {
                for event in events { queue.push(event) }
            }
        }
    }

    /// Waits until every event published so far has reached every observer (before a final
    /// summary is read from an observer's state), or until `deadline`: an observer that is stuck
    /// (its reader stopped reading) cannot hold up the end of a run. Returns false when the
    /// deadline passed first. Not to be called from an observer.
    @discardableResult
    public func flush(until deadline: Date = Date().addingTimeInterval(5)) -> Bool {
        outstanding.waitForNone(until: deadline)
    }

    /// A publisher bound to one source's label, for the source's own code.
    public func reporter(for source: String) -> SourceReporter {
        SourceReporter(source: source, bus: self)
    }
}

/// How many events are queued for, or being handed to, any observer of one bus. An observer that
/// publishes adds its event before its own is counted done, so zero means all quiet.
private final class Outstanding: Sendable {
    private let count = LockedBox(0)

    func add(_ delta: Int) {
        count.change { $0 += delta }
    }

    func waitForNone(until deadline: Date) -> Bool {
        count.wait { count in
            if count == 0 { return .ready(true) }
            return Date() >= deadline ? .ready(false) : .until(deadline)
        }
    }
}

/// One observer's bounded queue and the serial dispatch queue that calls it.
private final class ObserverQueue: Sendable {
    /// The events not yet handed over, and whether a drain is scheduled or running.
    private struct Pending: Sendable {
        var events: BoundedQueue<TimedEvent>
        var busy = false
    }

    private let observer: RunEventBus.Observer
    private let outstanding: Outstanding
    private let dispatch = DispatchQueue(label: "relay.run-events.observer")
    private let pending: LockedBox<Pending>

    init(observer: @escaping RunEventBus.Observer, capacity: Int, outstanding: Outstanding) {
        self.observer = observer
        self.outstanding = outstanding
        pending = LockedBox(Pending(events: BoundedQueue(capacity: capacity)))
    }

    func push(_ event: TimedEvent) {
        let (schedule, dropped) = pending.withLockedValue { pending -> (Bool, Bool) in
            let full = pending.events.count == pending.events.capacity
            pending.events.push(event)
            if pending.busy { return (false, full) }
            pending.busy = true
            return (true, full)
        }
        // A dropped event is done with; the one pushed is outstanding.
        if !dropped { outstanding.add(1) }
        if schedule { dispatch.async { self.drain() } }
    }

    private func drain() {
        while true {
            let batch = pending.withLockedValue { pending -> (items: [TimedEvent], dropped: Int)? in
                if pending.events.isEmpty {
                    pending.busy = false
                    return nil
                }
                return pending.events.takeAll()
            }
            guard let batch else { return }
            if batch.dropped > 0 { observer(TimedEvent(at: Date(), .run(.dropped(count: batch.dropped)))) }
            for event in batch.items {
                observer(event)
                outstanding.add(-1)
            }
        }
    }
}

/// What a photo source is handed to report with: it knows the source's label, so the source
/// says only what happened.
public struct SourceReporter: Sendable {
    public let source: String
    let bus: RunEventBus?

    /// A reporter that drops everything (for code run outside a `relay run`).
    public static let none = SourceReporter(source: "", bus: nil)

    public init(source: String, bus: RunEventBus?) {
        self.source = source
        self.bus = bus
    }

    public func callAsFunction(_ event: SourceEvent) {
        bus?.publish(.source(source, event))
    }

    /// A review event the source learnt of (the photographer selecting in the camera).
    public func review(_ event: ReviewEvent) {
        bus?.publish(.review(event))
    }
}
