import Foundation
import RelayCore
import RunEvents
import Spool

/// Publishes each destination's queue (from the spool) when it changed since the last look.
struct QueueWatch {
    private let spool: Spool
    /// Label and config id of each destination.
    private let destinations: [(label: String, id: String)]
    private var last: [String: QueueState] = [:]

    init(spool: Spool, configs: [RequestConfig]) {
        self.spool = spool
        destinations = configs.map { ($0.label, $0.id.uuidString) }
    }

    mutating func publishChanges(on bus: RunEventBus) {
        let queues = spool.queues()
        for destination in destinations {
            guard let queue = queues[destination.id] else { continue }
            let state = QueueState(
                queued: queue.queued, inFlight: queue.inFlight, failed: queue.failed,
                oldestQueuedAt: queue.oldestQueuedAt)
            guard last[destination.label] != state else { continue }
            last[destination.label] = state
            bus.publish(.destination(destination.label, .queue(state)))
        }
    }
}
