import Foundation
import RelayCore
import RunEvents
import Uploader

/// The upload workers' shared `GalleryReachability`: a worker waits here before it takes a
/// photo, and reports every attempt's outcome.
///
/// `@unchecked Sendable`: `reachability` is read and written only under `condition`.
final class GalleryGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var reachability = GalleryReachability()
    private let backoff: Backoff
    private let bus: RunEventBus
    /// The destination's config label, which names it in events.
    private let label: String
    /// Told when the destination is lost (false) and found again (true).
    private let onReachability: (@Sendable (Bool) -> Void)?

    init(backoff: Backoff, bus: RunEventBus, label: String, onReachability: (@Sendable (Bool) -> Void)? = nil) {
        self.backoff = backoff
        self.bus = bus
        self.label = label
        self.onReachability = onReachability
    }

    /// Blocks while the gallery is known to be unreachable and its next try is not due, or while
    /// another worker probes it; returns whether this worker's next attempt is the probe.
    /// Returns at once (false) when `stopping` becomes true.
    func awaitTurn(stopping: () -> Bool) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !stopping() {
            switch reachability.turn(at: Date()) {
            case .send: return false
            case .probe: return true
            case .wait(let until):
                // Short slices, so that a stop is noticed without a wake-up from it.
                _ = condition.wait(until: min(until ?? .distantFuture, Date().addingTimeInterval(0.2)))
            }
        }
        return false
    }

    /// Records one attempt's outcome, and says so when the gallery is lost or found again.
    func record(_ report: DeliveryReport, probe: Bool) {
        let change = condition.withLock { () -> GalleryReachability.Change? in
            defer { condition.broadcast() }
            return reachability.record(report.evidence, probe: probe, at: Date()) {
                backoff.delay(attempt: $0)
            }
        }
        switch change {
        case .lost(let nextTry)?:
            onReachability?(false)
            bus.publish(.destination(label, .lost(reason: report.problem ?? "?", retryIn: nextTry.timeIntervalSinceNow)))
        case .stillUnreachable(let nextTry)?:
            bus.publish(.destination(label, .stillLost(retryIn: nextTry.timeIntervalSinceNow)))
        case .regained?:
            onReachability?(true)
            bus.publish(.destination(label, .found))
        case nil:
            break
        }
    }
}
