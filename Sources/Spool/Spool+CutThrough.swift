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
        let reservation = incoming.reservation ?? reserve(identity)
        incoming.reservation = reservation
        var provisional = makeEntry(identity, sequence: reservation.sequence, uploadName: reservation.uploadName)
        provisional.attempts = 1  // an offer is claimed at most once: its upload is one attempt
        guard let growth = GrowingPhoto(entry: provisional, url: incoming.url, written: incoming.byteCount, offer: takeOfferNumber())
        else { return }
        incoming.growth = growth
        apply(.offer(provisional, offer: growth.offer), registering: growth)
    }

    /// The number and upload name a photo keeps from its first offer on.
    private func reserve(_ identity: PhotoIdentity) -> (sequence: Int, uploadName: String) {
        let kept = ask { $0.reserve(id: identity.stableID, fileName: identity.fileName) }
        return (kept.sequence, kept.uploadName)
    }

    /// Takes back the offer of `incoming` (its download failed or stopped): a worker sending it
    /// gives up, and the photo is uploaded from the spool once a later download commits it.
    public func withdraw(_ incoming: IncomingPhoto) {
        guard let growth = incoming.growth else { return }
        incoming.growth = nil
        apply(.withdraw(id: growth.entry.id, offer: growth.offer))
        growth.end(.abandoned)
    }

    /// Whether a worker is uploading `incoming`, or the rendition thread decoding it, while it
    /// downloads: then the upload or the rendition waits for the commit to end, and the commit
    /// should not be put off.
    public func isReadWhileDownloading(_ incoming: IncomingPhoto) -> Bool {
        guard let growth = incoming.growth else { return false }
        return look { $0.isRead(growth.entry.id, offer: growth.offer) }
    }
}
