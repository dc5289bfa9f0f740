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
        let incoming = IncomingPhoto(identity: identity, url: url, descriptor: fd)
        incoming.spool = self
        return incoming
    }

    /// Abandons an incoming photo: its partial file is removed.
    public func discard(_ incoming: IncomingPhoto) {
        withdraw(incoming)
        apply(.forgetIncoming(id: incoming.identity.stableID))
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
        var growth = incoming.growth
        incoming.growth = nil
        if let rewound = growth, rewound.ended != nil {
            // A rewind ended its reading (bytes it may have sent were taken back): that offer is over.
            apply(.withdraw(id: id, offer: rewound.offer))
            growth = nil
        }
        let reservation = incoming.reservation.map { Reservation(sequence: $0.sequence, uploadName: $0.uploadName) }
        let (kept, inFlightAttempts) = ask {
            $0.committing(id, fileName: identity.fileName, reservation: reservation, offer: growth?.offer)
        }
        let final = photoURL(id)
        var entry = makeEntry(identity, sequence: kept.sequence, uploadName: kept.uploadName)
        if let inFlightAttempts {
            // A worker is sending it already: it is in flight from the moment it is spooled.
            entry.attempts = inFlightAttempts
            entry.inFlightSince = Date()
            entry.uploaderPID = getpid()
        }
        entry.destinations = destinations.all.isEmpty ? nil : destinations.initialProgress
        var renamed = false
        do {
            entry.bytes = try incoming.synchronize()
            entry.selection = identity.selection
            if let facts = readHeader?(incoming.url) {
                entry.rating = facts.rating
                entry.camera = facts.camera
                entry.photographer = entry.photographer ?? facts.photographer
            }
            // The sidecar is durable before the photo is renamed in: a crash leaves at most a
            // sidecar without its photo, which a restart drops.
            try JSONStateFile<SpoolEntry>(url: sidecarURL(id)).save(entry)
            renamed = Foundation.rename(incoming.url.path, final.path) == 0
            guard renamed else { throw Errno.current("rename") }
            // `.incoming/` is emptied at every start: only the spool's own name must be durable.
            try Durable.syncFolder(directory.path)
        } catch {
            // A photo whose name may not be durable is not committed: it stays on the camera.
            if renamed { unlink(final.path) }
            apply(.commitFailed(id: id, offer: growth?.offer))
            growth?.end(.abandoned)
            discard(incoming)
            unlink(sidecarURL(id).path)
            throw Self.describe(error, at: final)
        }
        incoming.closeFile()
        committed(entry)
        apply(.admit(entry, offer: growth?.offer, now: Date(), pid: getpid()))
        // Read by nobody (any more): the download ends here for whoever held it.
        growth?.end(.abandoned)
        return look { $0.entry(id) } ?? entry
    }

    /// The queued, in-flight or failed entry with this id, if any.
    private func existingEntry(id: String) -> SpoolEntry? {
        let (existing, failed) = look { ($0.entry(id), $0.failed[id] != nil) }
        if let existing { return existing }
        guard failed else { return nil }
        return try? JSONStateFile<SpoolEntry>(url: failedDirectory.appendingPathComponent("\(id).json")).load()
    }
}
