import Foundation
import RelayCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The tether's way into the spool: a photo is written into `.incoming/`, where it may grow over
/// several calls (and be read while it does, see Spool+CutThrough and Spool+Renditions), and is
/// queued only by ``Spool/commit(_:committed:)``: fsynced, sidecar first, renamed in.
extension Spool {
    /// Spools one photo in one go: `write` fills the new file (given its descriptor), then
    /// `commit` does the rest. Returns the entry, or the existing one when this photo (same stable
    /// id) is already in the spool.
    @discardableResult
    public func ingest(
        _ identity: PhotoIdentity, write: (Int32) throws -> Void, committed: (SpoolEntry) -> Void = { _ in }
    ) throws(SpoolError) -> SpoolEntry {
        if let existing = existingEntry(id: identity.stableID) { return existing }
        let incoming = try beginIngest(identity)
        do {
            try write(incoming.descriptor)
        } catch {
            discard(incoming)
            throw Self.describe(error, at: incoming.url)
        }
        return try commit(incoming, committed: committed)
    }

    /// Starts writing a photo into `.incoming/`, where it may grow over several calls (a camera
    /// download resumed after a reconnect). Nothing of it is queued until `commit`.
    public func beginIngest(_ identity: PhotoIdentity) throws(SpoolError) -> IncomingPhoto {
        let url = incomingDirectory.appendingPathComponent("\(identity.stableID).jpg")
        let fd = open(url.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw Self.describe(Errno.current("open"), at: url) }
        return IncomingPhoto(identity: identity, url: url, descriptor: fd)
    }

    /// Abandons an incoming photo: its partial file is removed.
    public func discard(_ incoming: IncomingPhoto) {
        withdraw(incoming)
        let id = incoming.identity.stableID
        condition.withLock { ledger.forgetIncoming(id) }
        incoming.closeFile()
        unlink(incoming.url.path)
    }

    /// Makes a fully written photo part of the queue: the file is fsynced, its sidecar written,
    /// and only then renamed in. `committed` runs after the rename and before the photo can be
    /// delivered: the source records it as taken there, so a photo is never delivered before its
    /// source remembers it. A worker uploading it while it downloaded gets it in flight, and only
    /// then may send its last byte. Returns the entry, or the existing one when this photo (same
    /// stable id) is already in the spool (the incoming copy is then dropped).
    @discardableResult
    public func commit(_ incoming: IncomingPhoto, committed: (SpoolEntry) -> Void = { _ in }) throws(SpoolError) -> SpoolEntry {
        let identity = incoming.identity
        let id = identity.stableID
        if let existing = existingEntry(id: id) {
            discard(incoming)
            return existing
        }
        let growth = incoming.growth
        incoming.growth = nil
        let (sequence, uploadName, claimed) = condition.withLock { () -> (Int, String, GrowingPhoto?) in
            if let growth {
                offered.removeAll { $0 === growth }
                renditionOffers.removeAll { $0 === growth }
            }
            // A rewound or otherwise abandoned upload does not get the photo in flight.
            let claimed = growth.flatMap { cutThrough[id] === $0 && $0.ended == nil ? $0 : nil }
            if let reserved = incoming.reservation { return (reserved.sequence, reserved.uploadName, claimed) }
            let sequence = ledger.takeSequence()
            return (sequence, ledger.uniqueUploadName(for: identity.fileName, sequence: sequence, id: id), claimed)
        }
        let final = photoURL(id)
        var entry = makeEntry(identity, sequence: sequence, uploadName: uploadName)
        if let claimed {
            // A worker is sending it already: it is in flight from the moment it is spooled.
            entry.attempts = claimed.entry.attempts
            entry.inFlightSince = Date()
            entry.uploaderPID = getpid()
        }
        entry.destinations = destinations?.initialProgress
        var renamed = false
        do {
            entry.bytes = try incoming.synchronize()
            // The sidecar is durable before the photo is renamed in: a crash leaves at most a
            // sidecar without its photo, which a restart drops.
            try saveSidecar(entry)
            renamed = Foundation.rename(incoming.url.path, final.path) == 0
            guard renamed else { throw Errno.current("rename") }
            // `.incoming/` is emptied at every start: only the spool's own name must be durable.
            try Durable.syncFolder(directory.path)
        } catch {
            // A photo whose name may not be durable is not committed: it stays on the camera.
            if renamed { unlink(final.path) }
            growth?.end(.abandoned)
            condition.withLock {
                if let growth, cutThrough[id] === growth { cutThrough[id] = nil }
                if let growth, renderingOffers[id] === growth { renderingOffers[id] = nil }
            }
            discard(incoming)
            unlink(sidecarURL(id).path)
            throw Self.describe(error, at: final)
        }
        incoming.closeFile()
        committed(entry)
        let handedToWorker = condition.withLock { () -> Bool in
            let stillClaimed =
                claimed.map { cutThrough[id] === $0 && $0.ended == nil && ($0.entry.bytes == 0 || entry.bytes == $0.entry.bytes) } ?? false
            if let growth, cutThrough[id] === growth { cutThrough[id] = nil }
            let rendering = growth.flatMap { renderingOffers[id] === $0 && $0.ended == nil ? $0 : nil }
            if let growth, renderingOffers[id] === growth { renderingOffers[id] = nil }
            if stillClaimed, let claimed {
                ledger.admit(entry, inFlight: true)
                claimed.end(.committed(entry))
            } else if let rendering {
                // Its rendition is being made as it arrived: the same thread finishes it.
                ledger.admit(entry, inFlight: false, renditionUnderWay: true)
                rendering.end(.committed(entry))
            } else {
                growth?.end(.abandoned)
                entry.attempts = 0
                entry.inFlightSince = nil
                entry.uploaderPID = nil
                ledger.admit(entry, inFlight: false)
            }
            condition.broadcast()
            return stillClaimed
        }
        if claimed != nil && !handedToWorker {
            // The upload gave up between the two steps: the sidecar must not say it is in flight.
            try? saveSidecar(entry)
        }
        return entry
    }

    /// The queued, in-flight or failed entry with this id, if any.
    private func existingEntry(id: String) -> SpoolEntry? {
        let (existing, failed) = condition.withLock { (ledger.entry(id), ledger.failedIDs.contains(id)) }
        if let existing { return existing }
        guard failed else { return nil }
        return try? JSONStateFile<SpoolEntry>(url: failedDirectory.appendingPathComponent("\(id).json")).load()
    }
}
