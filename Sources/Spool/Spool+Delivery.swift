import Foundation

/// The three calls every destination's workers make, whichever destination they serve: take
/// work, find the file to send, settle the attempt. The destination the queue feeds (the run's
/// first: renditions, uploads while a photo downloads, its reachability holding back
/// low-priority ones) and every other destination differ only inside the spool, so one worker
/// kind serves them all.
extension Spool {
    /// Whether the queue feeds `destination`: it is sent renditions and photos still
    /// downloading. A spool without recorded destinations has only that one.
    public func isQueueFed(_ destination: String) -> Bool {
        destinations.map { $0.primary.id == destination } ?? true
    }

    /// Blocks until there is work for `destination`: a committed photo due there (in flight for
    /// the caller, `attempts` counting this one), or, when `cutThrough` is set and the queue
    /// feeds `destination`, a photo still downloading (with `unsized`, also one whose size is not
    /// known before its end). Nil once the spool is closed. The
    /// rendition is the queue-fed destination's: an entry claimed for any other has none, so
    /// that ``uploadURL(for:)`` and `deliveryKey` give the original.
    public func claimWork(for destination: String, cutThrough: Bool, unsized: Bool = true) -> Work? {
        if isQueueFed(destination) { return claimNextWork(cutThrough: cutThrough, unsized: unsized) }
        guard var entry = claimPhoto(for: destination) else { return nil }
        entry.attempts = entry.destinations?[destination]?.attempts ?? 1
        entry.rendition = nil
        return .spooled(entry)
    }

    /// Records how a delivery of `entry` to `destination` ended. The photo leaves the spool once
    /// every destination it was taken for has it, or moves to failed/ once each has settled and
    /// one refused it. A refusal that cannot be moved to failed/ leaves the photo queued (tried
    /// again in a minute) and throws.
    public func settle(_ entry: SpoolEntry, for destination: String, _ result: DestinationResult) throws(SpoolError) {
        guard isQueueFed(destination) else { return try settlePhoto(entry, for: destination, result) }
        switch result {
        case .delivered:
            try markDelivered(entry)
        case .retry(let after, let error, let statusCode):
            requeue(entry, after: after, error: error, statusCode: statusCode)
        case .failed(let reason, let statusCode):
            do throws(SpoolError) {
                try moveToFailed(entry, error: reason, statusCode: statusCode)
            } catch {
                requeue(entry, after: 60, error: reason, statusCode: statusCode)
                throw error
            }
        }
    }

    /// Whether `destination` can be reached, as its workers find out. While the destination the
    /// queue feeds cannot, its queue does not hold back a low-priority destination.
    public func setReachable(_ reachable: Bool, destination: String) {
        if isQueueFed(destination) { setPrimaryReachable(reachable) }
    }
}
