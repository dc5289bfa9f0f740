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
    static func key(_ id: String, _ destination: String) -> String { id + "|" + destination }

    /// Blocks until a committed photo is due for `destination` (not the primary), marks it in
    /// flight there and counts the attempt; nil once the spool is closed. A low-priority
    /// destination waits while anything of normal priority is due or being sent.
    func claimPhoto(for destination: String) -> SpoolEntry? {
        guard let me = destinations?.others.first(where: { $0.id == destination }) else { return nil }
        condition.lock()
        defer { condition.unlock() }
        while !closed {
            let now = Date()
            if let entry = takeDue(for: me, at: now) { return entry }
            // Short slices: retry times and the primary's work change without a signal of their own.
            _ = condition.wait(until: now.addingTimeInterval(0.25))
        }
        return nil
    }

    /// `claimPhoto` without the wait: the photo due now for `destination`, if any (tests use it
    /// to check the priority rule without threads).
    func takeDuePhoto(for destination: String, at now: Date = Date()) -> SpoolEntry? {
        guard let me = destinations?.others.first(where: { $0.id == destination }) else { return nil }
        return condition.withLock { takeDue(for: me, at: now) }
    }

    /// Call with `condition` held.
    private func takeDue(for me: SpoolDestinations.Destination, at now: Date) -> SpoolEntry? {
        let candidates = (queued + inFlight.values + lingering.values).sorted { $0.sequence < $1.sequence }
        if me.lowPriority && normalWorkWaiting(candidates, at: now) { return nil }
        guard let entry = candidates.first(where: { isDue($0.id, for: me.id, at: now) }) else { return nil }
        progress[entry.id]?[me.id]?.attempts += 1
        othersInFlight.insert(Self.key(entry.id, me.id))
        var claimed = entry
        claimed.destinations = progress[entry.id]
        return claimed
    }

    /// Records how a delivery to `destination` (not the primary) ended, and finishes the photo
    /// once every destination has settled.
    func settlePhoto(_ entry: SpoolEntry, for destination: String, _ result: DestinationResult) throws(SpoolError) {
        let id = entry.id
        let current = condition.withLock { () -> SpoolEntry? in
            defer { condition.broadcast() }
            othersInFlight.remove(Self.key(id, destination))
            guard var state = progress[id]?[destination] else { return nil }
            switch result {
            case .delivered:
                state.state = .delivered
                state.lastError = nil
            case .retry(let after, let error, let statusCode):
                state.lastError = error
                state.lastStatusCode = statusCode
                othersNotBefore[Self.key(id, destination)] = Date().addingTimeInterval(max(0, after))
            case .failed(let error, let statusCode):
                state.state = .failed
                state.lastError = error
                state.lastStatusCode = statusCode
            }
            progress[id]?[destination] = state
            return queued.first { $0.id == id } ?? inFlight[id] ?? lingering[id]
        }
        guard let current else { return }
        do { try saveSidecar(current, onlyWhilePending: true) } catch { throw Self.describe(error, at: photoURL(id)) }
        try finishIfSettled(id)
    }

    /// The primary destination delivered or refused the photo: it waits for the others.
    func settlePrimary(_ entry: SpoolEntry, _ state: DestinationProgress.State, error: String?, statusCode: Int?) throws(SpoolError) {
        guard let primary = destinations?.primary else { return }
        var waiting = entry
        waiting.inFlightSince = nil
        waiting.uploaderPID = nil
        if state == .failed {
            waiting.lastError = error
            waiting.lastStatusCode = statusCode
        }
        condition.withLock {
            var progress = self.progress[entry.id] ?? [:]
            var mine = progress[primary.id] ?? DestinationProgress(label: primary.label)
            mine.state = state
            mine.attempts = entry.attempts
            mine.lastError = error
            mine.lastStatusCode = statusCode
            progress[primary.id] = mine
            self.progress[entry.id] = progress
            lingering[entry.id] = waiting
        }
        finish(entry.id)
        // The others send the original: the rendition was the primary's.
        unlink(renditionURL(entry.id).path)
        var failure: SpoolError?
        // A photo that no other destination waits for is finished at once, and that writes its
        // sidecar: one write on the way from shutter to gallery, not two.
        if !isSettled(entry.id) {
            do { try saveSidecar(waiting, onlyWhilePending: true) } catch { failure = Self.describe(error, at: photoURL(entry.id)) }
        }
        try finishIfSettled(entry.id)
        if let failure { throw failure }
    }

    /// Whether no destination has the photo queued or in flight any more.
    private func isSettled(_ id: String) -> Bool {
        condition.withLock {
            progress[id].map { PhotoDestinations.settlement($0) != .waiting } ?? false
                && !othersInFlight.contains(where: { $0.hasPrefix(id + "|") })
        }
    }

    /// Removes the photo (every destination has it) or moves it to failed/ (one refused it) once
    /// no destination still has it queued or in flight.
    func finishIfSettled(_ id: String) throws(SpoolError) {
        let ready = condition.withLock { () -> (SpoolEntry, [String: DestinationProgress])? in
            guard !finalizing.contains(id), let entry = lingering[id], let map = progress[id],
                  PhotoDestinations.settlement(map) != .waiting,
                  !othersInFlight.contains(where: { $0.hasPrefix(id + "|") }) else { return nil }
            finalizing.insert(id)
            return (entry, map)
        }
        guard case (var entry, let map)? = ready else { return }
        entry.destinations = map
        defer {
            condition.withLock {
                finalizing.remove(id)
                lingering[id] = nil
                progress[id] = nil
                for key in othersNotBefore.keys where key.hasPrefix(id + "|") { othersNotBefore[key] = nil }
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
        condition.withLock {
            guard let destinations else { return queued.count + inFlight.count }
            let ids = Set(destinations.all.map(\.id))
            return (queued + inFlight.values + lingering.values).filter { entry in
                progress[entry.id]?.contains { ids.contains($0.key) && $0.value.state == .queued } ?? true
            }.count
        }
    }

    /// The destinations this run does not deliver to that photos in the spool still wait for
    /// (said once at start, so that nobody forgets them).
    public func waitingElsewhere() -> [WaitingDestination] {
        condition.withLock {
            let delivering = Set(destinations?.all.map(\.id) ?? [])
            let photos = (queued + inFlight.values + lingering.values).sorted { $0.sequence < $1.sequence }.compactMap { entry in
                progress[entry.id].map { (name: entry.uploadName, map: $0) }
            }
            return PhotoDestinations.waiting(photos, outside: delivering)
        }
    }

    /// Whether the primary destination can be reached (its upload workers say so when it is lost
    /// and found): while it cannot, its queue does not hold back a low-priority destination.
    func setPrimaryReachable(_ reachable: Bool) {
        condition.withLock {
            primaryReachable = reachable
            condition.broadcast()
        }
    }

    /// Call with `condition` held.
    private func isDue(_ id: String, for destination: String, at now: Date) -> Bool {
        progress[id]?[destination]?.state == .queued && !othersInFlight.contains(Self.key(id, destination))
            && (othersNotBefore[Self.key(id, destination)] ?? .distantPast) <= now && !finalizing.contains(id)
    }

    /// Whether a destination of normal priority has a photo due or in flight; call with
    /// `condition` held.
    private func normalWorkWaiting(_ candidates: [SpoolEntry], at now: Date) -> Bool {
        guard let destinations else { return false }
        if !inFlight.isEmpty || !cutThrough.isEmpty { return true }
        if primaryReachable && (!awaitingRendition.isEmpty || queued.contains(where: { (notBefore[$0.id] ?? .distantPast) <= now })) {
            return true
        }
        for other in destinations.others where !other.lowPriority {
            if candidates.contains(where: { isDue($0.id, for: other.id, at: now) }) { return true }
            if othersInFlight.contains(where: { $0.hasSuffix("|" + other.id) }) { return true }
        }
        return false
    }
}

extension Spool {
    /// Forgets what photos still owe the destination `query` names (its config id, an id
    /// prefix, or its label): they are no longer sent there. A photo no other destination waits
    /// for then leaves the spool (or moves to failed/, when one refused it). For `relay drop` and
    /// `relay config remove --release`, on a spool no run holds. Returns the photos released.
    public func release(destination query: String) throws(SpoolError) -> [SpoolEntry] {
        var released: [SpoolEntry] = []
        for var entry in condition.withLock({ queued }) {
            guard let map = entry.destinations, let kept = PhotoDestinations.release(map, matching: query) else { continue }
            entry.destinations = kept
            condition.withLock { if progress[entry.id] != nil { progress[entry.id] = kept } }
            let settlement = PhotoDestinations.settlement(kept)
            switch settlement {
            case .waiting:
                do { try saveSidecar(entry) } catch { throw Self.describe(error, at: sidecarURL(entry.id)) }
            case .delivered:
                try removeDelivered(entry)
            case .refused(let reason, let statusCode):
                try storeFailed(entry, error: reason, statusCode: statusCode)
            }
            let settled = settlement != .waiting
            let updated = entry
            condition.withLock {
                if settled {
                    queued.removeAll { $0.id == updated.id }
                } else if let index = queued.firstIndex(where: { $0.id == updated.id }) {
                    queued[index] = updated
                }
            }
            released.append(entry)
        }
        return released
    }
}
