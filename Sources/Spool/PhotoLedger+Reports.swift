import Foundation

/// What the run shows of the ledger: counts for the progress line, each destination's queue,
/// and the photos that wait for destinations this run does not deliver to.
extension PhotoLedger {
    /// Photos in the spool (queued and lingering) and in flight, in sequence order.
    public var held: (queued: [SpoolEntry], inFlight: [SpoolEntry]) {
        ((queued + lingering.values).sorted { $0.sequence < $1.sequence }, inFlight.values.sorted { $0.sequence < $1.sequence })
    }

    /// Counts for the progress line.
    public var counts: (queued: Int, inFlight: Int, failed: Int) {
        (queued.count + lingering.count, inFlight.count, failedIDs.count)
    }

    /// The queue-fed destination's queue, and each other destination's by its id.
    public var queues: (primary: SpoolQueue, others: [String: SpoolQueue]) {
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
                    if legsInFlight.contains(Leg(id: entry.id, destination: destination.id)) {
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

    /// The photos one of this run's destinations still has to take.
    public var pendingForRun: Int {
        guard let destinations else { return queued.count + inFlight.count }
        let ids = Set(destinations.all.map(\.id))
        return (queued + inFlight.values + lingering.values).filter { entry in
            progress[entry.id]?.contains { ids.contains($0.key) && $0.value.state == .queued } ?? true
        }.count
    }

    /// The destinations this run does not deliver to that photos in the spool still wait for.
    public var waitingElsewhere: [WaitingDestination] {
        let delivering = Set(destinations?.all.map(\.id) ?? [])
        let photos = (queued + inFlight.values + lingering.values).sorted { $0.sequence < $1.sequence }.compactMap { entry in
            progress[entry.id].map { (name: entry.uploadName, map: $0) }
        }
        return PhotoDestinations.waiting(photos, outside: delivering)
    }
}
