import Foundation

/// What the ledger says without changing: whether a photo is held, room, the sidecar to write,
/// counts for the progress line and each destination's queue.
extension PhotoLedger {
    /// The entry of a photo in the spool, as its sidecar says it.
    public func entry(_ id: String) -> SpoolEntry? {
        photos[id]?.snapshot
    }

    /// Whether a photo with this id is in the spool or failed/ (not delivered).
    public func contains(_ id: String) -> Bool {
        photos[id] != nil || failed[id] != nil
    }

    /// The content keys of the photos in the spool that have one.
    public var contentKeys: [String] {
        order.compactMap { photos[$0]?.entry.contentKey }
    }

    public func containsContent(_ key: String) -> Bool {
        photos.values.contains { $0.entry.contentKey == key }
    }

    /// Whether a photo of `bytes` fits within `limits`. An empty spool always has room, so that
    /// one photo larger than `maxBytes` can still pass.
    public func hasRoom(forBytes bytes: Int64, limits: SpoolLimits) -> Bool {
        photos.isEmpty || (photos.count < limits.maxPhotos && heldBytes + bytes <= limits.maxBytes)
    }

    /// The bytes of every photo in the spool.
    public var heldBytes: Int64 {
        photos.values.reduce(Int64(0)) { $0 + $1.entry.bytes }
    }

    /// What the sidecar of `id` is to say now; nil once the photo is being finished or gone (a
    /// late write must not bring back the sidecar of a photo that left).
    public func sidecar(_ id: String) -> SpoolEntry? {
        guard let photo = photos[id], !photo.finishing else { return nil }
        return photo.snapshot
    }

    /// Whether a worker or the rendition thread reads the offer `offer` of `id` as it downloads.
    public func isRead(_ id: String, offer: Int) -> Bool {
        guard let read = offers[id], read.offer == offer else { return false }
        switch read.stage {
        case .claimed, .rendering: return true
        case .offered, .closing, .handingOver: return false
        }
    }

    /// Whether the rendition file of `id` for `spec` is still needed.
    public func keepsRendition(_ id: String, spec: String) -> Bool {
        guard let photo = photos[id] else { return false }
        return photo.renditions[spec] == .made && photo.entry.renditions?[spec]?.bytes != nil
    }

    /// The leg of `id` to `destination`.
    public func leg(_ id: String, _ destination: String) -> Leg? {
        photos[id]?.legs?[destination]
    }

    /// Photos in the spool and in flight (on any leg), in sequence order.
    public var held: (queued: [SpoolEntry], inFlight: [SpoolEntry]) {
        let entries = order.compactMap { photos[$0] }
        return (entries.filter { !$0.isInFlight }.map(\.snapshot), entries.filter(\.isInFlight).map(\.snapshot))
    }

    /// Counts for the progress line.
    public var counts: (queued: Int, inFlight: Int, failed: Int) {
        let inFlight = photos.values.filter(\.isInFlight).count
        return (photos.count - inFlight, inFlight, failed.count)
    }

    /// Each destination's queue, by its id.
    public var queues: [String: SpoolQueue] {
        var queues: [String: SpoolQueue] = [:]
        let first = destinations.all.first?.id
        for destination in destinations.all {
            var queue = SpoolQueue()
            for id in order {
                guard let photo = photos[id], let leg = photo.legs?[destination.id] else { continue }
                switch leg.progress.state {
                case .queued:
                    if leg.inFlight != nil {
                        queue.inFlight += 1
                    } else if leg.held {
                        queue.held += 1
                    } else {
                        queue.queued += 1
                        queue.oldestQueuedAt = min(queue.oldestQueuedAt ?? photo.entry.spooledAt, photo.entry.spooledAt)
                    }
                case .failed: queue.failed += 1
                case .delivered, .rejected: break
                }
            }
            // A photo in failed/ counts for each destination that refused it (one that recorded
            // none, from an older relay, for the run's first).
            queue.failed += failed.values.filter { $0.contains(destination.id) || ($0.isEmpty && destination.id == first) }.count
            queues[destination.id] = queue
        }
        return queues
    }

    /// The photos one of this run's destinations still has to take.
    public var pendingForRun: Int {
        let ids = Set(destinations.all.map(\.id))
        return photos.values.filter { photo in
            photo.legs?.contains { ids.contains($0.key) && $0.value.isQueued } ?? true
        }.count
    }

    /// The destinations this run does not deliver to that photos in the spool still wait for.
    public var waitingElsewhere: [WaitingDestination] {
        let delivering = Set(destinations.all.map(\.id))
        let waiting = order.compactMap { id in
            photos[id].flatMap { photo in photo.legs.map { (photo.entry.uploadName, $0.mapValues(\.progress)) } }
        }
        return PhotoDestinations.waiting(waiting.map { (name: $0.0, map: $0.1) }, outside: delivering)
    }
}
