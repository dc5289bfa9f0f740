import Foundation
import RelayCore
import RunEvents
import Uploader

/// The upload workers' shared `GalleryReachability`: a worker waits here before it takes a
/// photo, and reports every attempt's outcome.
final class GalleryGate: Sendable {
    private let state = LockedBox(State())
    private let backoff: Backoff
    private let bus: RunEventBus
    /// The destination's config label, which names it in events.
    private let label: String
    /// Told when the destination is lost (false) and found again (true).
    private let onReachability: (@Sendable (Bool) -> Void)?

    private struct State: Sendable {
        var reachability = GalleryReachability()
        var closed = false
    }

    init(backoff: Backoff, bus: RunEventBus, label: String, onReachability: (@Sendable (Bool) -> Void)? = nil) {
        self.backoff = backoff
        self.bus = bus
        self.label = label
        self.onReachability = onReachability
    }

    /// Blocks while the gallery is known to be unreachable and its next try is not due, or while
    /// another worker probes it; returns whether this worker's next attempt is the probe.
    /// Returns at once (false) once the gate is closed.
    func awaitTurn() -> Bool {
        state.wait { state in
            if state.closed { return .ready(false) }
            switch state.reachability.turn(at: Date()) {
            case .send: return .ready(false)
            case .probe: return .ready(true)
            case .wait(let until): return .until(until)
            }
        }
    }

    /// The run stops: every worker waiting for its turn goes on (and finds the spool closed).
    func close() {
        state.change { $0.closed = true }
    }

    /// Records one attempt's outcome, and says so when the gallery is lost or found again.
    func record(_ report: DeliveryReport, probe: Bool) {
        let change = state.change { state in
            state.reachability.record(report.evidence, probe: probe, at: Date()) { backoff.delay(attempt: $0) }
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
