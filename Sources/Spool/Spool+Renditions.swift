import Foundation
import RelayCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The spool's side of renditions: a committed photo waits for the copy each of its destinations
/// takes (one per spec), which the one rendition thread makes (the streamed spec from the photo
/// as it downloads, when it can) and the spool records (file renamed in first, sidecar second).
extension Spool {
    /// What the rendition thread is given, and the spec (``RenditionSpec/key``) to make.
    public enum RenditionWork: Sendable {
        /// A queued photo whose rendition is to be made, now being made.
        case committed(SpoolEntry, spec: String)
        /// A photo still downloading: decode it as it arrives. When it is committed,
        /// ``GrowingPhoto/ended`` says `.committed` and its rendition is being made (finish it
        /// with ``finishRendition(_:_:)``); abandoned, give it up with ``dropRenditionOffer(_:)``.
        case growing(GrowingPhoto, spec: String)
    }

    /// Blocks until a queued photo needs its rendition, or (when none does) a photo starts
    /// downloading, and hands it to the caller (the one rendition thread); nil once the spool is
    /// closed.
    public func claimRenditionWork() -> RenditionWork? {
        let applied = awaitWork { .claimRendition }
        switch applied.answer {
        case .render(.committed(let entry, let spec)):
            return .committed(entry, spec: spec)
        case .render(.growing(let offer, let spec)):
            guard let photo = applied.reading[offer] else { preconditionFailure("an offer is registered in the step that makes it") }
            return .growing(photo, spec: spec)
        case .closed, .wait, .nothing, .handOut, .adopted, .released, .cutThrough, .decided:
            return nil
        }
    }

    /// The rendition thread stops reading a photo that is downloading (it was abandoned, the
    /// file could not be read, or the run stops): its rendition is made from the spooled photo
    /// once it is committed, or now if it already is.
    public func dropRenditionOffer(_ photo: GrowingPhoto) {
        apply(.dropRenditionOffer(id: photo.entry.id, offer: photo.offer))
    }

    /// Offers the rendition for `spec` of `photo`, being written at ``renditionWorkURL(for:spec:)``
    /// while the photo downloads, to an idle upload worker of a destination that takes `spec` and
    /// can send a body of unknown length, so that it goes out as it is made. Its last byte is
    /// readable only once the photo is committed and the rendition stored
    /// (``finishRendition(_:_:)``); then the worker has the photo in flight. Nil when the file
    /// cannot be opened (the rendition then goes once stored).
    public func offerRendition(of photo: GrowingPhoto, spec: String, written: Int64) -> GrowingPhoto? {
        var entry = photo.entry
        entry.bytes = 0
        entry.rendition = .made(spec: spec, photoKey: entry.idempotencyKey, bytes: 0, width: 0, height: 0)
        guard
            let upload = GrowingPhoto(
                entry: entry, url: renditionWorkURL(for: entry, spec: spec), written: written, offer: takeOfferNumber())
        else { return nil }
        apply(.offerRendition(entry, offer: upload.offer), registering: upload)
        return upload
    }

    /// More of an offered rendition is written.
    public func renditionGrew(_ upload: GrowingPhoto, to written: Int64) {
        upload.grew(to: written)
    }

    /// Takes back an offered rendition (its photo's download was abandoned, or the run stops):
    /// a worker sending it gives up.
    public func withdrawRendition(_ upload: GrowingPhoto) {
        apply(.withdrawRendition(id: upload.entry.id, offer: upload.offer))
    }

    /// Where the rendition for `spec` of `entry` is written before ``finishRendition(_:_:)`` (in
    /// `.incoming/`, so that a half-written one is discarded on start, never sent).
    public func renditionWorkURL(for entry: SpoolEntry, spec: String) -> URL {
        incomingDirectory.appendingPathComponent("\(entry.id).\(spec)\(Self.renditionSuffix)")
    }

    /// Records how `entry` is sent to the destinations that take `rendition.spec`: with a
    /// rendition (its file, complete and fsynced at ``renditionWorkURL(for:spec:)``, is renamed
    /// in before the sidecar says so) or as the original. Only then may those legs go; a worker
    /// that uploaded the rendition as it was made gets it in flight. If the rendition cannot be
    /// stored, the original is sent this run and the error thrown (a restart makes it again).
    public func finishRendition(_ entry: SpoolEntry, _ rendition: SpoolRendition) throws(SpoolError) {
        var failure: SpoolError?
        let work = renditionWorkURL(for: entry, spec: rendition.spec)
        let stored = renditionURL(entry.id, spec: rendition.spec)
        do {
            if rendition.bytes != nil {
                try Durable.rename(work.path, to: stored.path, syncingSource: false)
            }
            apply(.renditionRecorded(id: entry.id, rendition))
            try saveSidecar(entry.id)
        } catch {
            unlink(work.path)
            unlink(stored.path)
            let problem = Self.describe(error, at: stored)
            failure = problem
            let original = SpoolRendition.original(
                spec: rendition.spec, photoKey: entry.idempotencyKey, reason: "its rendition could not be stored (\(problem))")
            apply(.renditionRecorded(id: entry.id, original))
        }
        apply(.renditionStored(id: entry.id, spec: rendition.spec, now: Date(), pid: getpid()))
        if let failure { throw failure }
    }
}
