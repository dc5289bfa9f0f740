import Foundation
import RelayCore

/// Uploads that start while the photo is still downloading (cut-through): an idle worker takes an
/// offered photo, reads only what was written, and sends its last byte only once it is committed.
extension Spool {
    /// Lets an idle upload worker start sending `incoming` while it is still being written
    /// (cut-through), so that its upload runs alongside its download instead of after it. The
    /// spool rules still hold: the upload reads only what was written, its last byte only once the
    /// photo is committed, and a retry reads the committed file. Offered again after a withdrawal
    /// (a resumed download), it keeps its upload name and sequence. A photo whose size the source
    /// does not know (0) is offered to workers that can send a body without a length. In a run
    /// that sends renditions the photo is offered to the rendition thread instead, which decodes
    /// it as it arrives (the upload sends the rendition, made once the photo is committed).
    public func offer(_ incoming: IncomingPhoto) {
        guard incoming.growth == nil else { return }
        let identity = incoming.identity
        let reservation = incoming.reservation ?? condition.withLock { ledger.reserve(for: identity.fileName, id: identity.stableID) }
        incoming.reservation = reservation
        var provisional = makeEntry(identity, sequence: reservation.sequence, uploadName: reservation.uploadName)
        provisional.attempts = 1  // an offer is claimed at most once: its upload is one attempt
        guard let growth = GrowingPhoto(entry: provisional, url: incoming.url, written: incoming.byteCount) else { return }
        incoming.growth = growth
        condition.withLock {
            if renditionKey == nil { offered.append(growth) } else { renditionOffers.append(growth) }
            condition.broadcast()
        }
    }

    /// Takes back the offer of `incoming` (its download failed or stopped): a worker sending it
    /// gives up, and the photo is uploaded from the spool once a later download commits it.
    public func withdraw(_ incoming: IncomingPhoto) {
        guard let growth = incoming.growth else { return }
        incoming.growth = nil
        condition.withLock {
            offered.removeAll { $0 === growth }
            renditionOffers.removeAll { $0 === growth }
            if cutThrough[growth.entry.id] === growth { cutThrough[growth.entry.id] = nil }
            if renderingOffers[growth.entry.id] === growth { renderingOffers[growth.entry.id] = nil }
            growth.end(.abandoned)
        }
    }

    /// Whether a worker is uploading `incoming`, or the rendition thread decoding it, while it
    /// downloads: then the upload or the rendition waits for the commit to end, and the commit
    /// should not be put off.
    public func isReadWhileDownloading(_ incoming: IncomingPhoto) -> Bool {
        guard let growth = incoming.growth else { return false }
        return condition.withLock { cutThrough[growth.entry.id] === growth || renderingOffers[growth.entry.id] === growth }
    }

    /// Ends a cut-through upload that did not deliver the photo: if the download was committed
    /// meanwhile, the photo is in flight for the caller, to be settled by the usual rules (a
    /// retry then reads the committed file). Otherwise the claim is dropped and the photo is
    /// queued when its download commits, not before `retryDelay` seconds from now.
    public func settleCutThrough(_ photo: GrowingPhoto, retryDelay: TimeInterval) -> GrowingPhoto.Outcome {
        let outcome = condition.withLock { () -> GrowingPhoto.Outcome in
            let id = photo.entry.id
            if cutThrough[id] === photo {
                cutThrough[id] = nil
                if retryDelay > 0 { ledger.delay(id, until: Date().addingTimeInterval(retryDelay)) }
                return .abandoned
            }
            if let entry = ledger.inFlight[id], case .committed = photo.ended { return .committed(entry) }
            return .abandoned
        }
        // Not spooled, so no sidecar carries the photo's number, and its attempt may be recorded.
        if outcome == .abandoned { persistSequence(atLeast: photo.entry.sequence) }
        return outcome
    }
}
