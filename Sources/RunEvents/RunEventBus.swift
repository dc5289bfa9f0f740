import Foundation

/// Hands every published event to every observer, in one order, one event at a time.
///
/// Publishers are many threads (sources, upload workers, the rendition stage, the capture
/// controller); observers see events serially and never concurrently, so they need no locks of
/// their own for what they keep. An observer may publish (its event is delivered after the
/// current one). A thread that publishes while another is delivering returns at once and its
/// event is delivered by that thread, in order: no publisher waits for another's observers
/// beyond the delivery already under way.
public final class RunEventBus: @unchecked Sendable {
    /// Sees each event once, after the bus's own rules (the low battery and card warnings).
    public typealias Observer = @Sendable (TimedEvent) -> Void

    private let condition = NSCondition()
    private var observers: [Observer] = []
    private var pending: [TimedEvent] = []
    private var delivering = false
    private var watch = LowResourceWatch()

    public init() {}

    /// Adds an observer for every event published from now on.
    public func subscribe(_ observer: @escaping Observer) {
        condition.withLock { observers.append(observer) }
    }

    /// Publishes `event`, stamped now.
    public func publish(_ event: RunEvent) {
        publish(TimedEvent(at: Date(), event))
    }

    public func publish(_ event: TimedEvent) {
        condition.lock()
        pending.append(event)
        guard !delivering else {
            condition.unlock()
            return
        }
        delivering = true
        while !pending.isEmpty {
            let batch = pending
            pending = []
            let current = observers
            condition.unlock()
            var derived: [TimedEvent] = []
            for event in batch {
                for observer in current { observer(event) }
                derived += watch.derive(from: event)
            }
            condition.lock()
            pending.insert(contentsOf: derived, at: 0)
        }
        delivering = false
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until every event published so far has reached every observer (before a final
    /// summary is read from an observer's state).
    public func flush() {
        condition.withLock {
            while delivering || !pending.isEmpty { condition.wait() }
        }
    }

    /// A publisher bound to one source's label, for the source's own code.
    public func reporter(for source: String) -> SourceReporter {
        SourceReporter(source: source, bus: self)
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
}
