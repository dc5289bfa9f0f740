import Foundation
import RelayCore

/// Decisions on held photos reach the spool here: the ledger judges the photo's legs again, and
/// a leg released wakes the workers at once.
extension Spool {
    /// A person's verdict on the photo `id` (nil: the last one undone). Returns what it did to
    /// each of the photo's legs that this run delivers to; nil when the photo is not in the spool
    /// (it left, or never came).
    @discardableResult
    public func decide(_ id: String, verdict: ReviewVerdict?) throws(SpoolError) -> [PhotoLedger.Decision]? {
        try decisions(apply(.decide(id: id, verdict: verdict, now: Date())))
    }

    /// Lets the photos kept for an undo of their rejection leave once it is too late; returns
    /// when to call again (nil: not before the spool changes).
    @discardableResult
    public func tick() throws(SpoolError) -> Date? {
        let applied = apply(.tick(now: Date()))
        if let failure = applied.failure { throw failure }
        guard case .wait(let until) = applied.answer else { return nil }
        return until
    }

    /// The photos on the editor's desk now (``PhotoLedger/deskPhotos(at:)``), oldest first.
    public func deskPhotos() -> [DeskPhoto] {
        let now = Date()
        return look { $0.deskPhotos(at: now) }
    }

    /// Where the photo `id` stands with each of this run's destinations (by label, in the run's
    /// order); nil when it is not in the spool.
    public func legs(of id: String) -> [(label: String, state: Leg.State)]? {
        look { ledger in
            guard let photo = ledger.photos[id], let legs = photo.legs else { return nil }
            let now = Date()
            return ledger.destinations.all.compactMap { destination in
                legs[destination.id].map { (destination.label, $0.state(at: now)) }
            }
        }
    }

    /// The photos held for at least one of this run's destinations, oldest first, with the
    /// labels of the destinations that hold each.
    public func heldPhotos() -> [(entry: SpoolEntry, destinations: [String])] {
        look(\.heldPhotos)
    }
}

extension Spool {
    /// The entry of the photo `id` in the spool, as its sidecar says it.
    public func entry(_ id: String) -> SpoolEntry? {
        look { $0.entry(id) }
    }

    /// The photos in the spool (not failed/) that came from `source` under the camera's file
    /// name `name`, in sequence order.
    public func entries(from source: String, named name: String) -> [SpoolEntry] {
        look { ledger in
            ledger.order.compactMap { ledger.photos[$0]?.entry }.filter { $0.source == source && $0.cameraFileName == name }
        }
    }

    /// The ids of the photos in the spool, in sequence order, then those in failed/.
    public func entryIDs() -> [String] {
        look { $0.order + $0.failed.keys.sorted() }
    }
}

extension Spool {
    /// What the spool holds, and what of it is held for review: photos and bytes.
    public func usage() -> (photos: Int, bytes: Int64, heldPhotos: Int, heldBytes: Int64) {
        look { ledger in
            let held = ledger.heldUsage
            return (ledger.order.count, ledger.heldBytes, held.photos, held.bytes)
        }
    }
}

extension Spool {
    /// What the photographer marked in the camera on the photo `id`, learnt after it came in.
    /// Returns what it did to each of the photo's legs that this run delivers to (empty: the
    /// marks did not change); nil when the photo is not in the spool.
    @discardableResult
    public func select(_ id: String, _ selection: PhotoSelection) throws(SpoolError) -> [PhotoLedger.Decision]? {
        try decisions(apply(.select(id: id, selection, now: Date())))
    }

    /// What a decision (or selection) did to the photo's legs, once its actions ran.
    private func decisions(_ applied: Applied) throws(SpoolError) -> [PhotoLedger.Decision]? {
        if let failure = applied.failure { throw failure }
        guard case .decided(let decisions) = applied.answer else { return nil }
        return decisions
    }
}

extension CaptionOutcome {
    /// Which of `legs` a caption set now reaches: those not sent yet; those sent (or failed for
    /// good) or being sent keep what they had.
    public init(_ legs: [(label: String, state: Leg.State)]) {
        self.init()
        for (label, state) in legs {
            switch state {
            case .delivered, .failed: alreadySent.append(label)
            case .inFlight: beingSent.append(label)
            case .queued, .held, .waiting: goesTo.append(label)
            case .rejected: break
            }
        }
    }
}
