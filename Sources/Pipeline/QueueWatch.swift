import Foundation
import RelayCore
import RunEvents
import Spool

/// Publishes each destination's queue, and the spool's usage, when they changed since the last
/// look; and says so when photos held for review come to fill the spool.
struct QueueWatch {
    private let spool: Spool
    /// Label and config id of each destination.
    private let destinations: [(label: String, id: String)]
    private var last: [String: QueueState] = [:]
    private var lastUsage: SpoolUsage?
    /// Whether the warning about held photos was given (again below 3/4 of its share).
    private var warnedOfHeld = false

    init(spool: Spool, configs: [RequestConfig]) {
        self.spool = spool
        destinations = configs.map { ($0.label, $0.id.uuidString) }
    }

    mutating func publishChanges(on bus: RunEventBus) {
        let queues = spool.queues()
        for destination in destinations {
            guard let queue = queues[destination.id] else { continue }
            let state = QueueState(
                queued: queue.queued, inFlight: queue.inFlight, failed: queue.failed, held: queue.held,
                oldestQueuedAt: queue.oldestQueuedAt)
            guard last[destination.label] != state else { continue }
            last[destination.label] = state
            bus.publish(.destination(destination.label, .queue(state)))
        }
    }

    mutating func publishUsage(on bus: RunEventBus) {
        let now = spool.usage()
        let usage = SpoolUsage(
            photos: now.photos, bytes: now.bytes, heldPhotos: now.heldPhotos, heldBytes: now.heldBytes,
            maxPhotos: spool.limits.maxPhotos, maxBytes: spool.limits.maxBytes)
        guard usage != lastUsage else { return }
        lastUsage = usage
        bus.publish(.run(.spool(usage)))
        let share = usage.heldShare
        if share >= SpoolUsage.heldWarningShare && !warnedOfHeld {
            warnedOfHeld = true
            bus.publish(
                .run(
                    .notice(
                        "photos held for review fill \(Int(share * 100))% of the spool (\(usage.heldPhotos) photos): approve or "
                            + "reject them (relay review, the editor's page), or new photos will wait at the camera", .warning)))
        } else if share < SpoolUsage.heldWarningShare * 0.75 {
            warnedOfHeld = false
        }
    }
}
