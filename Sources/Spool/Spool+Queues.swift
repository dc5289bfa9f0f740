import Foundation

/// What each destination of a run still has to take, for the run's display (the status page,
/// the progress line, `/metrics`).
public struct SpoolQueue: Sendable, Equatable {
    public var queued = 0
    public var inFlight = 0
    public var failed = 0
    /// When the photo that has waited longest was spooled.
    public var oldestQueuedAt: Date?
}

extension Spool {
    /// The primary destination's queue, and each other destination's by its id.
    public func queues() -> (primary: SpoolQueue, others: [String: SpoolQueue]) {
        condition.withLock {
            var primary = SpoolQueue()
            primary.queued = queued.count
            primary.inFlight = inFlight.count
            primary.failed = failedIDs.count
            primary.oldestQueuedAt = queued.map(\.spooledAt).min()
            var others: [String: SpoolQueue] = [:]
            let entries = queued + inFlight.values + lingering.values
            for destination in destinations?.others ?? [] {
                var queue = SpoolQueue()
                for entry in entries {
                    switch progress[entry.id]?[destination.id]?.state {
                    case .queued?:
                        if othersInFlight.contains(Self.key(entry.id, destination.id)) {
                            queue.inFlight += 1
                        } else {
                            queue.queued += 1
                            queue.oldestQueuedAt = min(queue.oldestQueuedAt ?? entry.spooledAt, entry.spooledAt)
                        }
                    case .failed?: queue.failed += 1
                    case .delivered?, nil: break
                    }
                }
                others[destination.id] = queue
            }
            return (primary, others)
        }
    }
}
