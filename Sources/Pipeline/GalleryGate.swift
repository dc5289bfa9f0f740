import Foundation
import RelayCore
import RunEvents
import Uploader

/// The upload workers' shared `GalleryReachability`: a worker waits here before it takes a
/// photo, and reports every attempt's outcome.
final class GalleryGate: Sendable {
    private let reachability = LockedBox(GalleryReachability())
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
        while !stopping() {
            // Short slices, so that a stop is noticed without a wake-up from it.
            let sliceEnd = Date().addingTimeInterval(0.2)
            let turn: Bool? = reachability.wait { reachability in
                let now = Date()
                switch reachability.turn(at: now) {
                case .send: return .ready(false)
                case .probe: return .ready(true)
                case .wait(let until): return now >= sliceEnd ? .ready(nil) : .until(min(until ?? sliceEnd, sliceEnd))
                }
            }
            if let turn { return turn }
        }
        return false
    }

    /// Records one attempt's outcome, and says so when the gallery is lost or found again.
    func record(_ report: DeliveryReport, probe: Bool) {
        let change = reachability.change { reachability in
            reachability.record(report.evidence, probe: probe, at: Date()) { backoff.delay(attempt: $0) }
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
