import Foundation

/// Which photo a worker of a destination is handed next: the oldest whose leg there is due (and,
/// for a destination that takes renditions, whose rendition is made), else a photo still
/// downloading offered to it; a low-priority destination gets nothing while a destination of
/// normal priority has work due or under way.
extension PhotoLedger {
    mutating func claim(_ id: String, growing: GrowingAcceptance, now: Date, pid: Int32) -> Step {
        guard !closed, let me = destinations[id] else { return Step(answer: .closed) }
        if !(me.lowPriority && normalWorkWaiting(at: now)), let photo = firstDue(for: me, at: now),
            let entry = takeLeg(photo, for: me, offer: nil, now: now, pid: pid)
        {
            return Step([.saveSidecar(id: photo)], answer: .handOut(.spooled(entry)))
        }
        if growing != .none, let offer = oldestOffer(for: me, sizeUnknown: growing == .any) {
            return Step(answer: .handOut(.growing(offer: offer)))
        }
        return Step(answer: .wait(until: nextRetry(for: me, after: now)))
    }

    /// The oldest photo whose leg to `destination` a worker may take at `now`.
    private func firstDue(for destination: SpoolDestination, at now: Date) -> String? {
        order.first { id in
            guard let photo = photos[id], !photo.finishing, photo.legs?[destination.id]?.isDue(at: now) == true else { return false }
            return !photo.waitsForRendition(destination.rendition)
        }
    }

    /// The earliest retry time still to come of a leg to `destination` (a photo waiting for its
    /// rendition does not count: its time would wake idle workers again and again until it is
    /// made; nor does one past, which a low-priority destination held back would spin on).
    private func nextRetry(for destination: SpoolDestination, after now: Date) -> Date? {
        order.compactMap { id -> Date? in
            guard let photo = photos[id], !photo.finishing, let leg = photo.legs?[destination.id], leg.isQueued, leg.inFlight == nil,
                !photo.waitsForRendition(destination.rendition)
            else { return nil }
            return leg.notBefore.flatMap { $0 > now ? $0 : nil }
        }.min()
    }

    /// Takes the oldest photo still downloading that `destination` may read: a photo (in a run
    /// without renditions, for the destination that takes growing files) or a rendition being
    /// made (for a destination that takes that spec, when it can send a body without a length).
    private mutating func oldestOffer(for destination: SpoolDestination, sizeUnknown: Bool) -> Int? {
        var candidates: [(id: String, offer: Offer, rendition: Bool)] = []
        if destinations.streamedRendition == nil && destinations.growingTaker?.id == destination.id {
            candidates += offers.filter { $0.value.stage == .offered && (sizeUnknown || $0.value.entry.bytes > 0) }
                .map { ($0.key, $0.value, false) }
        }
        if let spec = destination.rendition, destination.takesGrowing && sizeUnknown {
            candidates += renditionUploads.filter { $0.value.stage == .offered && $0.value.entry.rendition?.spec == spec }
                .map { ($0.key, $0.value, true) }
        }
        guard let oldest = candidates.min(by: { $0.offer.offer < $1.offer.offer }) else { return nil }
        if oldest.rendition {
            renditionUploads[oldest.id]?.stage = .claimed(by: destination.id)
        } else {
            offers[oldest.id]?.stage = .claimed(by: destination.id)
        }
        return oldest.offer.offer
    }

    /// Whether a destination of normal priority has work due or under way: a photo read as it
    /// downloads, a leg in flight, or (while it can be reached) a leg due or a rendition to make.
    private func normalWorkWaiting(at now: Date) -> Bool {
        let normal = destinations.all.filter { !$0.lowPriority }
        let claimedByNormal = { (offer: Offer) -> Bool in
            if case .claimed(let by) = offer.stage { return normal.contains { $0.id == by } }
            if case .handingOver = offer.stage { return true }
            return false
        }
        if offers.values.contains(where: claimedByNormal) || renditionUploads.values.contains(where: claimedByNormal) { return true }
        for destination in normal {
            let reachable = !unreachable.contains(destination.id)
            for photo in photos.values where !photo.finishing {
                // A held leg is no work: the gallery sends nothing before a decision.
                guard let leg = photo.legs?[destination.id], leg.isQueued, !leg.held else { continue }
                if leg.inFlight != nil { return true }
                guard reachable else { continue }
                if photo.waitsForRendition(destination.rendition) { return true }
                if leg.isDue(at: now) { return true }
            }
        }
        return false
    }
}
