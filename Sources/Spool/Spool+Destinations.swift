import Foundation
import RelayCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A run that delivers each photo to several destinations: the primary one is fed by the queue
/// (renditions, uploads during the download, probing); every other destination takes each
/// committed photo on its own, so a failing FTP server or bucket never holds up the gallery. A
/// photo leaves the spool when every destination has it, or moves to failed/ once each has
/// settled and one refused it; `relay retry` then sends it again only where it failed.
extension Spool {
    /// Blocks until a committed photo is due for `destination` (not the primary), marks it in
    /// flight there and counts the attempt; nil once the spool is closed. A low-priority
    /// destination waits while anything of normal priority is due or being sent.
    func claimPhoto(for destination: String) -> SpoolEntry? {
        guard destinations?.others.contains(where: { $0.id == destination }) == true else { return nil }
        condition.lock()
        defer { condition.unlock() }
        while !closed {
            let now = Date()
            if let entry = ledger.claim(for: destination, at: now, uploadingWhileDownloading: !cutThrough.isEmpty) { return entry }
            // Short slices: retry times and the primary's work change without a signal of their own.
            _ = condition.wait(until: now.addingTimeInterval(0.25))
        }
        return nil
    }

    /// `claimPhoto` without the wait: the photo due now for `destination`, if any (tests use it
    /// to check the priority rule without threads).
    func takeDuePhoto(for destination: String, at now: Date = Date()) -> SpoolEntry? {
        condition.withLock { ledger.claim(for: destination, at: now, uploadingWhileDownloading: !cutThrough.isEmpty) }
    }

    /// Records how a delivery to `destination` (not the primary) ended, and finishes the photo
    /// once every destination has settled.
    func settlePhoto(_ entry: SpoolEntry, for destination: String, _ result: DestinationResult) throws(SpoolError) {
        let current = condition.withLock { () -> SpoolEntry? in
            defer { condition.broadcast() }
            return ledger.settle(entry.id, for: destination, result, at: Date())
        }
        guard let current else { return }
        do { try saveSidecar(current, onlyWhilePending: true) } catch { throw Self.describe(error, at: photoURL(entry.id)) }
        try finishIfSettled(entry.id)
    }

    /// The primary destination delivered or refused the photo: it waits for the others.
    func settlePrimary(_ entry: SpoolEntry, _ state: DestinationProgress.State, error: String?, statusCode: Int?) throws(SpoolError) {
        let (waiting, settled) = condition.withLock { () -> (SpoolEntry, Bool) in
            defer { condition.broadcast() }
            let waiting = ledger.settleQueueFed(entry, state, error: error, statusCode: statusCode)
            return (waiting, ledger.isSettled(entry.id))
        }
        // The others send the original: the rendition was the primary's.
        unlink(renditionURL(entry.id).path)
        var failure: SpoolError?
        // A photo that no other destination waits for is finished at once, and that writes its
        // sidecar: one write on the way from shutter to gallery, not two.
        if !settled {
            do { try saveSidecar(waiting, onlyWhilePending: true) } catch { failure = Self.describe(error, at: photoURL(entry.id)) }
        }
        try finishIfSettled(entry.id)
        if let failure { throw failure }
    }

    /// Removes the photo (every destination has it) or moves it to failed/ (one refused it) once
    /// no destination still has it queued or in flight.
    func finishIfSettled(_ id: String) throws(SpoolError) {
        guard let (entry, map) = condition.withLock({ ledger.beginFinishing(id) }) else { return }
        defer {
            condition.withLock {
                ledger.endFinishing(id)
                condition.broadcast()
            }
        }
        switch PhotoDestinations.settlement(map) {
        case .waiting: break
        case .delivered: try removeDelivered(entry)
        case .refused(let reason, let statusCode): try storeFailed(entry, error: reason, statusCode: statusCode)
        }
    }

    /// The photos in the spool that one of this run's destinations still has to take.
    public func pendingForRun() -> Int {
        condition.withLock { ledger.pendingForRun }
    }

    /// The destinations this run does not deliver to that photos in the spool still wait for
    /// (said once at start, so that nobody forgets them).
    public func waitingElsewhere() -> [WaitingDestination] {
        condition.withLock { ledger.waitingElsewhere }
    }

    /// Whether the primary destination can be reached (its upload workers say so when it is lost
    /// and found): while it cannot, its queue does not hold back a low-priority destination.
    func setPrimaryReachable(_ reachable: Bool) {
        condition.withLock {
            ledger.setQueueFedReachable(reachable)
            condition.broadcast()
        }
    }
}

extension Spool {
    /// Forgets what photos still owe the destination `query` names (its config id, an id
    /// prefix, or its label): they are no longer sent there. A photo no other destination waits
    /// for then leaves the spool (or moves to failed/, when one refused it). For `relay drop` and
    /// `relay config remove --release`, on a spool no run holds. Returns the photos released.
    public func release(destination query: String) throws(SpoolError) -> [SpoolEntry] {
        var released: [SpoolEntry] = []
        for id in condition.withLock({ ledger.queued.map(\.id) }) {
            guard let entry = condition.withLock({ ledger.release(id, matching: query) }), let kept = entry.destinations else { continue }
            switch PhotoDestinations.settlement(kept) {
            case .waiting:
                do { try saveSidecar(entry) } catch { throw Self.describe(error, at: sidecarURL(entry.id)) }
            case .delivered:
                try removeDelivered(entry)
            case .refused(let reason, let statusCode):
                try storeFailed(entry, error: reason, statusCode: statusCode)
            }
            released.append(entry)
        }
        return released
    }
}
