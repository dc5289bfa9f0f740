import Foundation

/// The photos a ledger starts with (found in the spool at start), and those `relay retry` and
/// `relay drop` change on a spool no run holds.
extension PhotoLedger {
    // MARK: - Maintenance

    mutating func readmit(_ entry: SpoolEntry, renditionFiles: Set<String>) -> [Action] {
        failed[entry.id] = nil
        insert(LedgerPhoto(entry, legs: entry.destinations.map(Leg.legs)), renditionFiles: renditionFiles)
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

    mutating func found(_ entry: SpoolEntry, renditionFiles: Set<String>) -> [Action] {
        failed[entry.id] = nil
        var found = entry
        found.inFlightSince = nil
        found.uploaderPID = nil
        var actions: [Action] = []
        let adopted = entry.destinations == nil && !destinations.all.isEmpty
        if adopted { actions.append(.adopted) }
        let specs = destinations.renditionKeys
        for (spec, rendition) in found.renditions ?? [:] where !specs.contains(spec) {
            // Made for another config: this run sends what its own configs ask for.
            found.renditions?[spec] = nil
            if rendition.bytes != nil { actions.append(.removeRendition(id: entry.id, spec: spec)) }
        }
        let legs = adopted ? destinations.initialProgress : entry.destinations
        insert(LedgerPhoto(found, legs: legs.map(Leg.legs)), renditionFiles: renditionFiles)
        return actions
    }

    /// Puts a photo in sequence order, waiting for each rendition a queued leg takes that is not
    /// made (`renditionFiles`: the specs whose file is in the spool).
    mutating func insert(_ photo: LedgerPhoto, renditionFiles: Set<String>) {
        var photo = photo
        let id = photo.entry.id
        for spec in neededRenditions(photo) {
            let made = photo.entry.renditions?[spec].map { $0.bytes == nil || renditionFiles.contains(spec) } ?? false
            if !made { photo.entry.renditions?[spec] = nil }
            photo.renditions[spec] = made ? .made : .awaiting
        }
        photos[id] = photo
        let position = order.firstIndex { (photos[$0]?.entry.sequence ?? 0) > photo.entry.sequence } ?? order.endIndex
        order.insert(id, at: position)
        _ = judge(id, reconsidering: false)
    }

    /// The renditions the run's queued legs of `photo` take.
    func neededRenditions(_ photo: LedgerPhoto) -> Set<String> {
        guard let legs = photo.legs else { return [] }
        return Set(destinations.all.compactMap { legs[$0.id]?.isQueued == true ? $0.rendition : nil })
    }
}
