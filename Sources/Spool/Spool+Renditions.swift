import Foundation
import RelayCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The spool's side of renditions: a committed photo waits for its gallery copy, which the one
/// rendition thread makes (from the photo as it downloads, when it can) and the spool records
/// (file renamed in first, sidecar second).
extension Spool {
    /// What the rendition thread is given.
    public enum RenditionWork: Sendable {
        /// A queued photo whose rendition is to be made, now being made.
        case committed(SpoolEntry)
        /// A photo still downloading: decode it as it arrives. When it is committed,
        /// ``GrowingPhoto/ended`` says `.committed` and its rendition is being made (finish it
        /// with ``finishRendition(_:_:)``); abandoned, give it up with ``dropRenditionOffer(_:)``.
        case growing(GrowingPhoto)
    }

    /// Blocks until a queued photo needs its rendition, or (when none does) a photo starts
    /// downloading, and hands it to the caller (the one rendition thread); nil once the spool is
    /// closed.
    public func claimRenditionWork() -> RenditionWork? {
        condition.lock()
        defer { condition.unlock() }
        while !closed {
            renditionOffers.removeAll { $0.isAbandoned }
            if let entry = ledger.claimRendition() { return .committed(entry) }
            if !renditionOffers.isEmpty {
                let growing = renditionOffers.removeFirst()
                renderingOffers[growing.entry.id] = growing
                return .growing(growing)
            }
            condition.wait()
        }
        return nil
    }

    /// The rendition thread stops reading a photo that is downloading (it was abandoned, the
    /// file could not be read, or the run stops): its rendition is made from the spooled photo
    /// once it is committed, or now if it already is.
    public func dropRenditionOffer(_ photo: GrowingPhoto) {
        condition.withLock {
            if renderingOffers[photo.entry.id] === photo { renderingOffers[photo.entry.id] = nil }
            if case .committed(let entry) = photo.ended { ledger.renditionGivenBack(entry.id) }
            condition.broadcast()
        }
    }

    /// Offers the rendition of `photo`, being written at ``renditionWorkURL(for:)`` while the
    /// photo downloads, to an idle upload worker that can send a body of unknown length, so that
    /// it goes out as it is made. Its last byte is readable only once the photo is committed and
    /// the rendition stored (``finishRendition(_:_:)``); then the worker has the photo in flight.
    /// Nil when the file cannot be opened (the rendition then goes once stored).
    public func offerRendition(of photo: GrowingPhoto, written: Int64) -> GrowingPhoto? {
        var entry = photo.entry
        entry.bytes = 0
        entry.rendition = .made(spec: renditionKey ?? "", photoKey: entry.idempotencyKey, bytes: 0, width: 0, height: 0)
        guard let upload = GrowingPhoto(entry: entry, url: renditionWorkURL(for: entry), written: written) else { return nil }
        condition.withLock {
            renditionUploads[entry.id] = upload
            offered.append(upload)
            condition.broadcast()
        }
        return upload
    }

    /// More of an offered rendition is written.
    public func renditionGrew(_ upload: GrowingPhoto, to written: Int64) {
        upload.grew(to: written)
    }

    /// Takes back an offered rendition (its photo's download was abandoned, or the run stops):
    /// a worker sending it gives up.
    public func withdrawRendition(_ upload: GrowingPhoto) {
        condition.withLock {
            if renditionUploads[upload.entry.id] === upload { abandonRenditionUpload(upload.entry.id) }
        }
    }

    /// Ends the offered rendition of `id`, if any, for a worker that will not get it: it gives up.
    /// Under `condition`.
    private func abandonRenditionUpload(_ id: String) {
        guard let upload = renditionUploads.removeValue(forKey: id) else { return }
        offered.removeAll { $0 === upload }
        if cutThrough[id] === upload { cutThrough[id] = nil }
        upload.end(.abandoned)
    }

    /// The photo `id`, its rendition just stored, claimed for the worker sending that rendition
    /// as it was made (nil, the upload given up, when there is none or it cannot have it).
    /// Under `condition`, in the same hold as the rendition is recorded: no other worker may
    /// take the photo from the queue in between.
    private func claimForRenditionUpload(_ id: String, stored: SpoolRendition?) -> (GrowingPhoto, SpoolEntry)? {
        guard let upload = renditionUploads[id], stored?.bytes != nil, cutThrough[id] === upload, upload.ended == nil,
            let entry = ledger.claimQueued(id, at: Date(), pid: getpid())
        else {
            abandonRenditionUpload(id)
            return nil
        }
        return (upload, entry)
    }

    /// Hands a photo claimed with ``claimForRenditionUpload(_:stored:)`` to its worker: in flight,
    /// its sidecar saying so before the worker may read the last byte (as
    /// ``commit(_:committed:)`` does). When the worker gave up meanwhile, or that sidecar cannot
    /// be written, the photo goes back to the queue, its sidecar rewritten first (as a retry's is).
    private func handOver(_ upload: GrowingPhoto, _ entry: SpoolEntry) {
        let id = entry.id
        let saved = (try? saveSidecar(entry)) != nil
        let handed = condition.withLock { () -> Bool in
            renditionUploads[id] = nil
            let holding = cutThrough[id] === upload && upload.ended == nil
            if holding { cutThrough[id] = nil }
            if holding && saved {
                upload.end(.committed(entry))
                return true
            }
            upload.end(.abandoned)
            return false
        }
        guard !handed else { return }
        try? saveSidecar(PhotoLedger.unclaimed(entry))
        condition.withLock {
            _ = ledger.unclaim(id)
            condition.broadcast()
        }
    }

    /// Where the rendition of `entry` is written before ``finishRendition(_:_:)`` (in
    /// `.incoming/`, so that a half-written one is discarded on start, never sent).
    public func renditionWorkURL(for entry: SpoolEntry) -> URL {
        incomingDirectory.appendingPathComponent("\(entry.id).rendition.jpg")
    }

    /// Records how `entry` is sent: with a rendition (its file, complete and fsynced at
    /// ``renditionWorkURL(for:)``, is renamed in before the sidecar says so) or as the original.
    /// The photo is then handed to the uploader. If the rendition cannot be stored, the original
    /// is sent this run and the error thrown (a restart makes the rendition again).
    public func finishRendition(_ entry: SpoolEntry, _ rendition: SpoolRendition) throws(SpoolError) {
        var updated = entry
        updated.rendition = rendition
        var failure: SpoolError?
        do {
            if rendition.bytes != nil {
                try Durable.rename(renditionWorkURL(for: entry).path, to: renditionURL(entry.id).path, syncingSource: false)
            }
            try saveSidecar(updated)
        } catch {
            unlink(renditionWorkURL(for: entry).path)
            unlink(renditionURL(entry.id).path)
            failure = Self.describe(error, at: renditionURL(entry.id))
            updated.rendition = .original(
                spec: rendition.spec, photoKey: entry.idempotencyKey,
                reason: "its rendition could not be stored (\(failure!))")
        }
        let settled = updated
        let claimed = condition.withLock { () -> (GrowingPhoto, SpoolEntry)? in
            ledger.renditionDone(entry.id, settled.rendition)
            let claimed = claimForRenditionUpload(entry.id, stored: settled.rendition)
            condition.broadcast()
            return claimed
        }
        if let (upload, sending) = claimed { handOver(upload, sending) }
        if let failure { throw failure }
    }

    /// Whether `entry` must get a rendition before it is sent: the run makes them, and the
    /// entry has none for this spec, or its file is gone (a photo retried from failed/).
    func needsRendition(_ entry: SpoolEntry) -> Bool {
        guard let renditionKey else { return false }
        guard let rendition = entry.rendition, rendition.spec == renditionKey else { return true }
        return rendition.bytes != nil && !FileManager.default.fileExists(atPath: renditionURL(entry.id).path)
    }
}
