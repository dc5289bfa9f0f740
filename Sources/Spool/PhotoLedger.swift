import Foundation
import RelayCore

/// A spooled photo's life as a plain value: which destination legs of which photos are queued,
/// in flight or waiting, which photos wait for their rendition, which are still downloading and
/// offered to a worker, and when a photo is done with. No files, threads or clocks (`now` comes
/// in with the input), so that every transition is tested on its own.
///
/// One way in: ``apply(_:)`` takes what happened (an ``Input``) and returns a ``Step``: what the
/// caller is told (an ``Answer``) and what the Spool is to do (``Action``s: write a sidecar,
/// remove a file, end an offer). The ``Spool`` applies inputs under its one lock and runs every
/// action outside it, deciding nothing, as AsyncHTTPClient's `HTTPConnectionPool.StateMachine`
/// and its `modifyStateAndRunActions` do. What the Spool finds on disk comes in as facts with the
/// input. The questions that only take a number (``reserve(id:fileName:)``, ``takeSequence()``,
/// ``committing(_:fileName:reservation:offer:)``) are methods whose type is their answer.
///
/// Every destination of a photo is a ``Leg`` with the same states; what differs between
/// destinations is what each declares (``SpoolDestination``). A photo leaves once every leg
/// settled (delivered or refused).
///
/// DESIGN: a new leg state goes into ``Leg`` (and its persisted form into
/// ``DestinationProgress/State``) with the inputs that enter and leave it here; the Spool needs
/// no change unless the state has files of its own.
public struct PhotoLedger: Sendable {
    /// The run's destinations (``SpoolDestinations/none`` for a spool that is only looked after).
    public let destinations: SpoolDestinations
    /// How long a rejection can be undone: the photo stays in the spool that long even once
    /// every other destination has it (an editor's mistaken tap).
    public static let undoWindow: TimeInterval = 120
    /// Every photo in the spool, by id, and their ids in sequence order.
    var photos: [String: LedgerPhoto] = [:]
    var order: [String] = []
    /// Photos in failed/, with the destinations that refused each (empty: not recorded).
    public internal(set) var failed: [String: Set<String>] = [:]
    /// Photos still downloading, offered for upload (no renditions) or to the rendition thread,
    /// by id; and renditions being made as their photo downloads, offered for upload, by id.
    var offers: [String: Offer] = [:]
    var renditionUploads: [String: Offer] = [:]
    /// Upload names held by photos still downloading, by id.
    var reservedNames: [String: String] = [:]
    /// A retry time set for a photo's leg before the photo was committed (its upload during the
    /// download failed), by id.
    var earlyRetries: [String: (destination: String, notBefore: Date)] = [:]
    /// Destinations known to be unreachable: their queues do not hold back a low-priority one.
    var unreachable: Set<String> = []
    /// The next sequence number to hand out, and the highest `.sequence` holds.
    public internal(set) var nextSequence = 1
    public internal(set) var persistedSequence = 0
    /// No more work is handed out.
    public internal(set) var closed = false

    public init(destinations: SpoolDestinations) {
        self.destinations = destinations
    }

    /// What happened, as the ledger is told it.
    public enum Input: Sendable {
        // MARK: Photos arriving
        /// A download given up: its name and early retry time go.
        case forgetIncoming(id: String)
        /// A photo still downloading may be read (its provisional entry; `offer` names the hand-over).
        case offer(SpoolEntry, offer: Int)
        /// Its download stopped: the offer is taken back.
        case withdraw(id: String, offer: Int)
        /// The commit failed: nothing of it stays.
        case commitFailed(id: String, offer: Int?)
        /// The photo is in the spool (sidecar written, renamed in).
        case admit(SpoolEntry, offer: Int?, now: Date, pid: Int32)

        // MARK: Workers
        /// A worker of `destination` wants work (`growing`: which photos still downloading it takes).
        case claim(destination: String, growing: GrowingAcceptance, now: Date, pid: Int32)
        /// How one delivery ended.
        case settle(id: String, destination: String, DestinationResult, now: Date)
        /// A worker that read a photo (or rendition) as it downloaded is done without a delivery
        /// (`sequence`: the number the download had).
        case endCutThrough(id: String, sequence: Int, destination: String, offer: Int, retryDelay: TimeInterval, now: Date)
        /// Whether a destination can be reached, as its workers found out.
        case reachable(destination: String, Bool)
        case close

        // MARK: Renditions
        /// The rendition thread wants work.
        case claimRendition
        /// The rendition thread stops reading a photo that downloads.
        case dropRenditionOffer(id: String, offer: Int)
        /// A rendition being made as its photo downloads may be uploaded as it is written.
        case offerRendition(SpoolEntry, offer: Int)
        case withdrawRendition(id: String, offer: Int)
        /// The rendition is stored (or the original goes): recorded, not yet sendable.
        case renditionRecorded(id: String, SpoolRendition)
        /// Its sidecar says so: the photo's legs that take `spec` may go.
        case renditionStored(id: String, spec: String, now: Date, pid: Int32)
        /// The sidecar of a photo claimed for its rendition's upload was written (or not).
        case handedOver(id: String, offer: Int, saved: Bool)

        // MARK: Finishing, looking after, starting
        /// A settled photo's files are gone (delivered) or in failed/ (refused).
        case finished(id: String)
        /// A settled photo's move to failed/ failed (`photoLeft`: its photo is there all the same).
        case finishFailed(id: String, photoLeft: Bool, now: Date)
        /// A photo whose sidecar could not be read was moved to failed/ without one of the ledger's.
        case setAside(id: String)
        /// `relay retry`: a photo back from failed/.
        case readmit(SpoolEntry, renditionFiles: Set<String>)
        /// `relay drop`: what the photo owes the destinations `query` names is forgotten.
        case release(id: String, query: String)
        /// Start: the sidecars in failed/, and the numbers found.
        case foundFailed([SpoolEntry])
        case numbering(persisted: Int, highestFound: Int)
        /// Start: a sidecar found in the spool, with what is on disk beside it.
        case found(SpoolEntry, FoundFiles)
        /// Start: every photo was found (`renditionFiles`: the specs of every rendition file in
        /// the spool, by photo id); those every leg settled before a crash are finished.
        case started(renditionFiles: [String: Set<String>])
        /// `.sequence` now holds this number.
        case persisted(Int)

        // MARK: Decisions
        /// A person's verdict on a photo (nil: the last one undone), from the review journal.
        case decide(id: String, verdict: ReviewVerdict?, now: Date)
        /// What the photographer marked on the photo in the camera, learnt after it came in.
        case select(id: String, PhotoSelection, now: Date)
        /// Time passes: photos kept for an undo of their rejection leave once it is too late
        /// (and ``Answer/wait(until:)`` says when the next one may).
        case tick(now: Date)
    }

    /// The one way in: what `input` changes, what to tell its caller and what to do about it.
    public mutating func apply(_ input: Input) -> Step {
        switch input {
        case .forgetIncoming(let id):
            forgetIncoming(id)
            return Step()
        case .offer(let entry, let offer): return Step(addOffer(entry, offer: offer))
        case .withdraw(let id, let offer): return Step(takeBackOffer(id, offer: offer))
        case .commitFailed(let id, let offer): return Step(commitFailed(id, offer: offer))
        case .admit(let entry, let offer, let now, let pid): return Step(admit(entry, offer: offer, now: now, pid: pid))
        case .claim(let destination, let growing, let now, let pid): return claim(destination, growing: growing, now: now, pid: pid)
        case .settle(let id, let destination, let result, let now): return Step(settle(id, destination, result, now: now))
        case .endCutThrough(let id, let sequence, let destination, let offer, let retryDelay, let now):
            return endCutThrough(id, sequence: sequence, destination: destination, offer: offer, retryDelay: retryDelay, now: now)
        case .reachable(let destination, let reachable):
            if reachable { unreachable.remove(destination) } else { unreachable.insert(destination) }
            return Step()
        case .close:
            closed = true
            return Step()
        case .claimRendition: return claimRendition()
        case .dropRenditionOffer(let id, let offer): return Step(dropRenditionOffer(id, offer: offer))
        case .offerRendition(let entry, let offer): return Step(offerRendition(entry, offer: offer))
        case .withdrawRendition(let id, let offer): return Step(withdrawRendition(id, offer: offer))
        case .renditionRecorded(let id, let rendition):
            if var photo = photos[id] {
                photo.entry.renditions = (photo.entry.renditions ?? [:]).merging([rendition.spec: rendition]) { $1 }
                photos[id] = photo
            }
            return Step()
        case .renditionStored(let id, let spec, let now, let pid): return Step(renditionStored(id, spec: spec, now: now, pid: pid))
        case .handedOver(let id, let offer, let saved): return Step(handedOver(id, offer: offer, saved: saved))
        case .finished(let id):
            finished(id)
            return Step()
        case .finishFailed(let id, let photoLeft, let now): return Step(finishFailed(id, photoLeft: photoLeft, now: now))
        case .setAside(let id):
            failed[id] = []
            return Step()
        case .readmit(let entry, let files):
            readmit(entry, renditionFiles: files)
            return Step()
        case .release(let id, let query): return release(id, matching: query)
        case .foundFailed(let entries):
            for entry in entries where failed[entry.id] == nil { failed[entry.id] = Self.refusers(entry.destinations) }
            return Step()
        case .numbering(let persisted, let highest):
            persistedSequence = persisted
            let top = max(persisted, highest)
            nextSequence = top == Int.max ? top : top + 1
            return Step()
        case .found(let entry, let files): return found(entry, files)
        case .started(let renditionFiles): return Step(removeOrphans(renditionFiles) + order.flatMap { finishIfSettled($0) })
        case .persisted(let sequence):
            persistedSequence = max(persistedSequence, sequence)
            return Step()
        case .decide(let id, let verdict, let now): return decide(id, verdict: verdict, now: now)
        case .select(let id, let selection, let now): return select(id, selection, now: now)
        case .tick(let now):
            return Step(order.flatMap { finishIfSettled($0, now: now) }, answer: .wait(until: nextUndoEnd(after: now)))
        }
    }

    // MARK: - Legs

    /// The leg of `id` to `destination`, changed by `body`.
    mutating func changeLeg<Result>(_ id: String, _ destination: String, _ body: (inout Leg) -> Result) -> Result? {
        guard var leg = photos[id]?.legs?[destination] else { return nil }
        let result = body(&leg)
        photos[id]?.legs?[destination] = leg
        return result
    }

    /// A leg claimed for a worker: in flight, its attempt counted, the photo's sidecar saying so.
    mutating func takeLeg(_ id: String, for destination: SpoolDestination, offer: Int?, now: Date, pid: Int32) -> SpoolEntry? {
        guard var photo = photos[id], var leg = photo.legs?[destination.id], leg.isQueued, leg.inFlight == nil else { return nil }
        leg.inFlight = Leg.InFlight(since: now, offer: offer)
        leg.progress.attempts += 1
        leg.notBefore = nil
        photo.legs?[destination.id] = leg
        photo.entry.attempts = max(photo.entry.attempts, leg.progress.attempts)
        photo.entry.inFlightSince = photo.entry.inFlightSince ?? now
        photo.entry.uploaderPID = pid
        photos[id] = photo
        return photo.entry(for: destination)
    }

    /// A leg handed back before its worker could send anything: not in flight, its attempt not counted.
    mutating func untakeLeg(_ id: String, _ destination: String) {
        changeLeg(id, destination) { leg in
            leg.inFlight = nil
            leg.progress.attempts = max(0, leg.progress.attempts - 1)
        }
        let attempts = photos[id]?.legs?.values.map(\.progress.attempts).max() ?? 0
        photos[id]?.entry.attempts = attempts
        clearInFlightIfIdle(id)
    }

    mutating func clearInFlightIfIdle(_ id: String) {
        guard let photo = photos[id], !(photo.legs?.values.contains { $0.inFlight != nil } ?? false) else { return }
        photos[id]?.entry.inFlightSince = nil
        photos[id]?.entry.uploaderPID = nil
    }

    // MARK: - Settling

    private mutating func settle(_ id: String, _ destination: String, _ result: DestinationResult, now: Date) -> [Action] {
        guard photos[id]?.legs?[destination] != nil else { return [] }
        changeLeg(id, destination) { leg in
            leg.inFlight = nil
            switch result {
            case .delivered:
                leg.progress.state = .delivered
                leg.progress.lastError = nil
            case .retry(let after, let error, let statusCode):
                leg.notBefore = now.addingTimeInterval(max(0, after))
                leg.progress.lastError = error
                leg.progress.lastStatusCode = statusCode
            case .failed(let error, let statusCode):
                leg.progress.state = .failed
                leg.progress.lastError = error
                leg.progress.lastStatusCode = statusCode
            }
        }
        switch result {
        case .delivered: break
        case .retry(_, let error, let statusCode):
            photos[id]?.entry.lastError = error
            photos[id]?.entry.lastStatusCode = statusCode
        case .failed(let error, let statusCode):
            photos[id]?.entry.lastError = error
            photos[id]?.entry.lastStatusCode = statusCode
        }
        clearInFlightIfIdle(id)
        // A decision made while the leg was in flight holds or rejects it if it comes back.
        _ = judge(id, reconsidering: false, now: now)
        let finishing = finishIfSettled(id, now: now)
        if !finishing.isEmpty { return finishing }
        // A rendition this leg alone took goes.
        return reconcileRenditions(id) + [.saveSidecar(id: id)]
    }

    /// The photo is being finished once no leg is queued or in flight (a photo that recorded no
    /// destinations never is: a run that adopts it decides), and a rejection can no longer be
    /// undone at `now` (without a time, a rejected photo is kept: a later tick finishes it).
    mutating func finishIfSettled(_ id: String, now: Date? = nil) -> [Action] {
        guard var photo = photos[id], !photo.finishing, let legs = photo.legs, !legs.values.contains(where: \.isQueued) else { return [] }
        if let last = legs.values.compactMap(\.undoableUntil).max(), now.map({ $0 < last }) ?? true { return [] }
        photo.finishing = true
        photos[id] = photo
        let map = legs.mapValues(\.progress)
        return [.finish(photo.snapshot, PhotoDestinations.settlement(map))]
    }

    /// When the next photo kept only for an undo of its rejection may leave: the time of the
    /// next ``Input/tick(now:)`` (nil: none is kept so; a leg that settles later says so by a change).
    func nextUndoEnd(after now: Date) -> Date? {
        photos.values.compactMap { photo -> Date? in
            guard !photo.finishing, let legs = photo.legs, !legs.values.contains(where: \.isQueued) else { return nil }
            return legs.values.compactMap(\.undoableUntil).max().flatMap { $0 > now ? $0 : nil }
        }.min()
    }

    /// The photo's rendition stages as its queued legs need them: a spec no queued leg takes any
    /// more is dropped (its file removed once made), and one a leg takes again (a refused or
    /// rejected leg queued again) is made again before that leg goes.
    mutating func reconcileRenditions(_ id: String) -> [Action] {
        guard var photo = photos[id] else { return [] }
        let needed = neededRenditions(photo)
        var actions: [Action] = []
        for (spec, stage) in photo.renditions where !needed.contains(spec) {
            photo.renditions[spec] = nil
            if stage == .made, photo.entry.renditions?[spec]?.bytes != nil {
                photo.entry.renditions?[spec] = nil
                actions.append(.removeRendition(id: id, spec: spec))
            }
        }
        for spec in needed where photo.renditions[spec] == nil {
            photo.entry.renditions?[spec] = nil
            photo.renditions[spec] = .awaiting
        }
        photos[id] = photo
        return actions
    }

    /// A settled photo's files are gone, or in failed/ (refused by the destinations that failed it).
    private mutating func finished(_ id: String) {
        if let photo = photos[id] {
            let refusedBy = Self.refusers(photo.legs?.mapValues(\.progress))
            if !refusedBy.isEmpty { failed[id] = refusedBy }
        }
        photos[id] = nil
        order.removeAll { $0 == id }
        earlyRetries[id] = nil
    }

    /// A settled photo whose move to failed/ failed: if its photo left all the same (a folder
    /// sync failed after the rename), it is failed/'s now; otherwise this run's refused legs are
    /// tried again in a minute (a leg that takes the rendition waits for it to be made again).
    private mutating func finishFailed(_ id: String, photoLeft: Bool, now: Date) -> [Action] {
        if photoLeft {
            finished(id)
            return []
        }
        guard var photo = photos[id], photo.finishing else { return [] }
        photo.finishing = false
        for destination in destinations.all where photo.legs?[destination.id]?.progress.state == .failed {
            photo.legs?[destination.id]?.progress.state = .queued
            photo.legs?[destination.id]?.notBefore = now.addingTimeInterval(60)
        }
        photos[id] = photo
        _ = judge(id, reconsidering: false, now: now)
        return reconcileRenditions(id) + [.saveSidecar(id: id)]
    }

    /// The destinations that refused a photo (none recorded: an older relay's).
    static func refusers(_ legs: [String: DestinationProgress]?) -> Set<String> {
        Set((legs ?? [:]).filter { $0.value.state == .failed }.keys)
    }

    // MARK: - Numbers

    /// A sequence number of its own (a photo moved to failed/ without its sidecar).
    public mutating func takeSequence() -> Int {
        let sequence = nextSequence
        nextSequence = nextSequence &+ 1
        return sequence
    }

    /// The photo's safe file name, unique among those in the spool and those reserved by photos
    /// still downloading. A name the same photo reserved earlier (a resumed download) is its own.
    func uniqueUploadName(for fileName: String, sequence: Int, id: String) -> String {
        let name = SafeFileName.make(fileName)
        let taken =
            photos.values.contains { $0.entry.uploadName == name } || reservedNames.contains { $0.key != id && $0.value == name }
        return taken ? SafeFileName.withSuffix(name, "\(sequence)") : name
    }

    /// A download begins: it keeps a sequence number and an upload name until committed.
    public mutating func reserve(id: String, fileName: String) -> Reservation {
        let sequence = takeSequence()
        let name = uniqueUploadName(for: fileName, sequence: sequence, id: id)
        reservedNames[id] = name
        return Reservation(sequence: sequence, uploadName: name)
    }

    private mutating func forgetIncoming(_ id: String) {
        reservedNames[id] = nil
        if photos[id] == nil { earlyRetries[id] = nil }
    }

    /// Whether `.sequence` holds every number handed out, so that a sidecar may go.
    var numbersPersisted: Bool {
        persistedSequence >= nextSequence - 1
    }

    /// The number `.sequence` is to hold before the last record of `sequence` goes, nil when it
    /// holds it already or a photo in the spool with a higher number carries it.
    public func sequenceToPersist(atLeast sequence: Int) -> Int? {
        guard sequence > persistedSequence else { return nil }
        let carriedByAnother = photos.values.contains { !$0.finishing && $0.entry.sequence > sequence }
        return carriedByAnother ? nil : max(sequence, nextSequence - 1)
    }
}
