import Foundation

/// The photos a ledger starts with (found in the spool at start), and those `relay retry` and
/// `relay drop` change on a spool no run holds.
extension PhotoLedger {
    // MARK: - Maintenance

    mutating func readmit(_ entry: SpoolEntry, renditionFileExists: Bool) -> [Action] {
        failed[entry.id] = nil
        insert(LedgerPhoto(entry, legs: entry.destinations.map(Leg.legs)), renditionFileExists: renditionFileExists)
        return []
    }

    mutating func release(_ id: String, matching query: String) -> [Action] {
        guard let photo = photos[id], !photo.finishing, let legs = photo.legs,
            let kept = PhotoDestinations.release(legs.mapValues(\.progress), matching: query)
        else { return [] }
        photos[id]?.legs = legs.filter { kept[$0.key] != nil }
        let released = photos[id]?.snapshot ?? photo.snapshot
        let finishing = finishIfSettled(id)
        return [.released(released)] + (finishing.isEmpty ? [.saveSidecar(id: id)] : finishing)
    }

    // MARK: - Start

    mutating func found(_ entry: SpoolEntry, renditionFileExists: Bool) -> [Action] {
        failed[entry.id] = nil
        var found = entry
        found.inFlightSince = nil
        found.uploaderPID = nil
        var actions: [Action] = []
        let adopted = entry.destinations == nil && !destinations.all.isEmpty
        if adopted { actions.append(.adopted) }
        if let rendition = found.rendition, rendition.spec != renditionKey {
            // Made for another config: this run sends what its own config asks for.
            found.rendition = nil
            if rendition.bytes != nil { actions.append(.removeRendition(id: entry.id)) }
        }
        let legs = adopted ? destinations.initialProgress : entry.destinations
        insert(LedgerPhoto(found, legs: legs.map(Leg.legs)), renditionFileExists: renditionFileExists)
        return actions
    }

    /// Puts a photo in sequence order, waiting for its rendition when a leg needs one.
    mutating func insert(_ photo: LedgerPhoto, renditionFileExists: Bool) {
        var photo = photo
        let id = photo.entry.id
        if needsRendition(photo) {
            let made = photo.entry.rendition.map { $0.bytes == nil || renditionFileExists } ?? false
            if !made { photo.entry.rendition = nil }
            photo.rendition = made ? .made : .awaiting
        } else {
            photo.rendition = .notNeeded
        }
        photos[id] = photo
        let position = order.firstIndex { (photos[$0]?.entry.sequence ?? 0) > photo.entry.sequence } ?? order.endIndex
        order.insert(id, at: position)
        _ = judge(id, reconsidering: false)
    }

    /// Whether one of the run's legs of `photo` that takes a rendition still has it queued.
    func needsRendition(_ photo: LedgerPhoto) -> Bool {
        guard renditionKey != nil, let legs = photo.legs else { return false }
        return destinations.all.contains { $0.takesRendition && legs[$0.id]?.isQueued == true }
    }
}
