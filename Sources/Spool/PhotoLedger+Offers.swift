import Foundation

/// Photos read while they download (cut-through), keyed by photo id: offered to a worker (or to
/// the rendition thread, in a run that sends renditions), committed into a leg in flight for the
/// worker that read it, or abandoned. Each hand-over is named by its offer number, so a worker
/// holding an older offer of a photo (a download withdrawn and begun again) is told apart.
extension PhotoLedger {
    mutating func addOffer(_ entry: SpoolEntry, offer: Int) -> [Action] {
        put(entry, offer: offer, in: \.offers)
    }

    mutating func takeBackOffer(_ id: String, offer: Int) -> [Action] {
        takeBack(id, offer: offer, from: \.offers)
    }

    /// Offers `entry` in `list`; an older offer of the same photo there ends (its download was
    /// begun again).
    private mutating func put(_ entry: SpoolEntry, offer: Int, in list: WritableKeyPath<PhotoLedger, [String: Offer]>) -> [Action] {
        let older = self[keyPath: list][entry.id]
        self[keyPath: list][entry.id] = Offer(offer: offer, entry: entry)
        return older.map { [.end(offer: $0.offer, .abandoned)] } ?? []
    }

    /// Takes the offer `offer` of `id` out of `list`, ending its reading; nothing when it is not there.
    private mutating func takeBack(_ id: String, offer: Int, from list: WritableKeyPath<PhotoLedger, [String: Offer]>) -> [Action] {
        guard self[keyPath: list][id]?.offer == offer else { return [] }
        self[keyPath: list][id] = nil
        return [.end(offer: offer, .abandoned)]
    }

    /// How the committing photo's sidecar is to start: its number and name (`reservation`: those
    /// it kept, if any), and in flight with this attempt for the worker reading it as it
    /// downloads (nil: queued). No new worker may take its offer from now on.
    public mutating func committing(_ id: String, fileName: String, reservation: Reservation?, offer: Int?) -> (
        Reservation, inFlightAttempts: Int?
    ) {
        var inFlightAttempts: Int?
        if let offer, var current = offers[id], current.offer == offer {
            switch current.stage {
            case .claimed: inFlightAttempts = current.entry.attempts
            case .offered: current.stage = .closing
            case .rendering, .closing, .handingOver: break
            }
            offers[id] = current
        }
        let kept: Reservation
        if let reservation {
            kept = reservation
        } else {
            let sequence = takeSequence()
            kept = Reservation(sequence: sequence, uploadName: uniqueUploadName(for: fileName, sequence: sequence, id: id))
        }
        return (kept, inFlightAttempts)
    }

    mutating func commitFailed(_ id: String, offer: Int?) -> [Action] {
        reservedNames[id] = nil
        guard let offer, offers[id]?.offer == offer else { return [] }
        offers[id] = nil
        return [.end(offer: offer, .abandoned)]
    }

    /// A committed photo: in flight for the worker that read it as it downloaded (when it read
    /// the size it has), its rendition under way when the rendition thread read it, else queued.
    mutating func admit(_ entry: SpoolEntry, offer: Int?, now: Date, pid: Int32) -> [Action] {
        let id = entry.id
        reservedNames[id] = nil
        var queued = entry
        queued.attempts = 0
        queued.inFlightSince = nil
        queued.uploaderPID = nil
        let legs = entry.destinations ?? (destinations.all.isEmpty ? nil : destinations.initialProgress)
        insert(LedgerPhoto(queued, legs: legs.map(Leg.legs)), renditionFiles: [])
        if let early = earlyRetries.removeValue(forKey: id) {
            changeLeg(id, early.destination) { $0.notBefore = early.notBefore }
        }
        var actions: [Action] = []
        if let offer, let read = offers[id], read.offer == offer {
            offers[id] = nil
            switch read.stage {
            case .claimed(let by) where read.entry.bytes == 0 || read.entry.bytes == entry.bytes:
                if let destination = destinations[by], var handed = takeLeg(id, for: destination, offer: offer, now: now, pid: pid) {
                    handed.attempts = max(handed.attempts, read.entry.attempts)
                    return [.end(offer: offer, .committed(handed))]
                }
            case .rendering(let spec) where photos[id]?.renditions[spec] == .awaiting:
                photos[id]?.renditions[spec] = .making(offer: offer)
                return [.end(offer: offer, .committed(photos[id]?.snapshot ?? entry))]
            default:
                break
            }
            actions.append(.end(offer: offer, .abandoned))
        }
        // The sidecar said in flight for a worker that gave up between the two steps.
        if entry.inFlightSince != nil { actions.append(.saveSidecar(id: id)) }
        return actions
    }

    /// A worker is done reading a photo (or rendition) as it downloaded, without a delivery: if
    /// the photo was committed into its hands meanwhile, it has it in flight (to settle as
    /// usual); otherwise its claim is dropped and the photo goes once committed, not before
    /// `retryDelay` from now, and `.sequence` keeps its number (no sidecar carries it).
    mutating func endCutThrough(
        _ id: String, sequence: Int, destination: String, offer: Int, retryDelay: TimeInterval, now: Date
    ) -> Step {
        let abandoned = Step([.persistSequence(atLeast: sequence)], answer: .cutThrough(.abandoned))
        for uploads in [\PhotoLedger.offers, \PhotoLedger.renditionUploads] {
            guard let read = self[keyPath: uploads][id], read.offer == offer else { continue }
            self[keyPath: uploads][id] = nil
            if retryDelay > 0 {
                let notBefore = now.addingTimeInterval(retryDelay)
                if photos[id] != nil {
                    changeLeg(id, destination) { $0.notBefore = notBefore }
                } else {
                    earlyRetries[id] = (destination, notBefore)
                }
            }
            return Step([.end(offer: offer, .abandoned)] + abandoned.actions, answer: abandoned.answer)
        }
        if let photo = photos[id], photo.legs?[destination]?.inFlight?.offer == offer, let me = destinations[destination] {
            return Step(answer: .cutThrough(.committed(photo.entry(for: me))))
        }
        return abandoned
    }

    // MARK: - Renditions

    /// The oldest committed photo with a rendition to make (its specs in the run's order), else
    /// the oldest photo still downloading, decoded as it arrives for the streamed spec
    /// (``SpoolDestinations/streamedRendition``).
    mutating func claimRendition() -> Step {
        guard !closed else { return Step(answer: .closed) }
        let specs = destinations.renditionKeys
        for id in order {
            guard let photo = photos[id], !photo.finishing, let spec = specs.first(where: { photo.renditions[$0] == .awaiting }) else {
                continue
            }
            photos[id]?.renditions[spec] = .making(offer: nil)
            return Step(answer: .render(.committed(photo.snapshot, spec: spec)))
        }
        if let spec = destinations.streamedRendition,
            let (id, offer) = offers.filter({ $0.value.stage == .offered }).min(by: { $0.value.offer < $1.value.offer })
        {
            offers[id]?.stage = .rendering(spec: spec)
            return Step(answer: .render(.growing(offer: offer.offer, spec: spec)))
        }
        return Step(answer: .wait(until: nil))
    }

    /// The rendition thread stops reading a downloading photo: its rendition is made from the
    /// spooled photo once committed (or now, if it is).
    mutating func dropRenditionOffer(_ id: String, offer: Int) -> [Action] {
        let ended = takeBack(id, offer: offer, from: \.offers)
        if ended.isEmpty, let spec = photos[id]?.renditions.first(where: { $0.value == .making(offer: offer) })?.key {
            photos[id]?.renditions[spec] = .awaiting
        }
        return ended
    }

    mutating func offerRendition(_ entry: SpoolEntry, offer: Int) -> [Action] {
        put(entry, offer: offer, in: \.renditionUploads)
    }

    mutating func withdrawRendition(_ id: String, offer: Int) -> [Action] {
        takeBack(id, offer: offer, from: \.renditionUploads)
    }

    /// The rendition for `spec` is stored and its sidecar says so: the legs that take it may go.
    /// A worker that is uploading it as it was made gets the photo in flight, in the same step,
    /// so that no other worker takes it from the queue in between. One no queued leg takes any
    /// more (its leg settled meanwhile) is removed.
    mutating func renditionStored(_ id: String, spec: String, now: Date, pid: Int32) -> [Action] {
        guard let photo = photos[id] else { return [] }
        var actions: [Action] = []
        if neededRenditions(photo).contains(spec) {
            photos[id]?.renditions[spec] = .made
        } else {
            photos[id]?.renditions[spec] = nil
            if photo.entry.renditions?[spec]?.bytes != nil { actions.append(.removeRendition(id: id, spec: spec)) }
            photos[id]?.entry.renditions?[spec] = nil
        }
        guard let upload = renditionUploads[id], upload.entry.rendition?.spec == spec else { return actions }
        if case .claimed(let by) = upload.stage, photos[id]?.entry.renditions?[spec]?.bytes != nil, let destination = destinations[by],
            let entry = takeLeg(id, for: destination, offer: upload.offer, now: now, pid: pid)
        {
            renditionUploads[id]?.stage = .handingOver(to: by)
            return actions + [.handOver(offer: upload.offer, entry)]
        }
        renditionUploads[id] = nil
        return actions + [.end(offer: upload.offer, .abandoned)]
    }

    /// The sidecar of a photo claimed for its rendition's worker was written (`saved`): the
    /// worker may send the last byte. When it gave up meanwhile, or the sidecar could not be
    /// written, the photo goes back to the queue, its sidecar rewritten.
    mutating func handedOver(_ id: String, offer: Int, saved: Bool) -> [Action] {
        let upload = renditionUploads[id].flatMap { $0.offer == offer ? $0 : nil }
        if upload != nil { renditionUploads[id] = nil }
        guard let photo = photos[id], let destination = photo.legs?.first(where: { $0.value.inFlight?.offer == offer })?.key else {
            return upload.map { [.end(offer: $0.offer, .abandoned)] } ?? []
        }
        if saved, case .handingOver = upload?.stage, let me = destinations[destination] {
            return [.end(offer: offer, .committed(photo.entry(for: me)))]
        }
        untakeLeg(id, destination)
        return [.end(offer: offer, .abandoned), .saveSidecar(id: id)]
    }
}
