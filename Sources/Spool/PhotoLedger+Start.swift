import Foundation

/// The photos a ledger starts with (found in the spool at start), and those `relay retry` and
/// `relay drop` change on a spool no run holds.
extension PhotoLedger {
    // MARK: - Maintenance

    mutating func readmit(_ entry: SpoolEntry, renditionFiles: Set<String>) {
        failed[entry.id] = nil
        insert(LedgerPhoto(entry, legs: entry.destinations.map(Leg.legs)), renditionFiles: renditionFiles)
    }

    mutating func release(_ id: String, matching query: String) -> Step {
        guard let photo = photos[id], !photo.finishing, let legs = photo.legs,
            let kept = PhotoDestinations.release(legs.mapValues(\.progress), matching: query)
        else { return Step() }
        photos[id]?.legs = legs.filter { kept[$0.key] != nil }
        let released = photos[id]?.snapshot ?? photo.snapshot
        let finishing = finishIfSettled(id)
        return Step(finishing.isEmpty ? [.saveSidecar(id: id)] : finishing, answer: .released(released))
    }

    // MARK: - Start

    /// A sidecar found at start, with its files. Delivered, never committed (a crash before the
    /// rename) or moved to failed/ (no photo beside it): its files go, the sidecar once
    /// `.sequence` holds every number (it may be the last record of one). Otherwise the photo is
    /// queued, taking the run's destinations when it recorded none; a half-done move to or from
    /// failed/ is undone where the photo is (here: a permanent answer would fail it again).
    mutating func found(_ entry: SpoolEntry, _ files: FoundFiles) -> Step {
        let id = entry.id
        guard entry.state != .delivered, files.photo else {
            var actions: [Action] = entry.state == .delivered ? [.removePhoto(id: id)] : []
            let specs = Set((entry.renditions ?? [:]).keys).union(destinations.renditionKeys)
            actions += specs.sorted().map { .removeRendition(id: id, spec: $0) }
            return Step(numbersPersisted ? actions + [.removeSidecar(id: id)] : actions)
        }
        var actions: [Action] = failed.removeValue(forKey: id) == nil ? [] : [.removeFailedSidecar(id: id)]
        var found = entry
        found.inFlightSince = nil
        found.uploaderPID = nil
        let adopted = entry.destinations == nil && !destinations.all.isEmpty
        let specs = destinations.renditionKeys
        for (spec, rendition) in (found.renditions ?? [:]).sorted(by: { $0.key < $1.key }) where !specs.contains(spec) {
            // Made for another config: this run sends what its own configs ask for.
            found.renditions?[spec] = nil
            if rendition.bytes != nil { actions.append(.removeRendition(id: id, spec: spec)) }
        }
        let legs = adopted ? destinations.initialProgress : entry.destinations
        insert(LedgerPhoto(found, legs: legs.map(Leg.legs)), renditionFiles: files.renditions)
        return Step(actions, answer: adopted ? .adopted : .nothing)
    }

    /// The rendition files found at start that no photo needs: their photo has gone (a crash
    /// between removing the files), no leg of this run takes their spec, or an older relay
    /// named them without one ("").
    func removeOrphans(_ renditionFiles: [String: Set<String>]) -> [Action] {
        renditionFiles.sorted { $0.key < $1.key }.flatMap { id, specs in
            specs.sorted().filter { !keepsRendition(id, spec: $0) }.map { Action.removeRendition(id: id, spec: $0) }
        }
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
