import Foundation
import RelayCore

/// A spooled photo's life as a plain value: which photos wait for which destination, which are
/// in flight, when each may be tried again, which wait for their rendition, and when a photo is
/// done with. Every decision the spool makes is a call here; ``Spool`` is the shell around it
/// that writes files, fsyncs, locks and waits. No files, threads or clocks (`now` is passed in),
/// so that each transition is tested on its own.
///
/// The queue-fed destination (the run's first, or the only one) takes photos from `queued`, in
/// order, with renditions and uploads while a photo downloads. Every other destination's progress
/// is kept per photo in `progress`; a photo the queue-fed destination has settled while another
/// still needs it is `lingering`. A photo leaves once every destination settled it.
public struct PhotoLedger: Sendable {
    /// One photo on its way to one destination that is not queue-fed.
    struct Leg: Hashable, Sendable {
        var id: String
        var destination: String
    }

    /// The run's destinations when it delivers to several (nil: one, and the queue alone decides).
    public let destinations: SpoolDestinations?
    /// Whether the run sends renditions: a committed photo waits for its own before the queue
    /// hands it out.
    public let makesRenditions: Bool

    /// Photos for the queue-fed destination, oldest first.
    public private(set) var queued: [SpoolEntry] = []
    /// Photos the queue-fed destination is sending, by id.
    public private(set) var inFlight: [String: SpoolEntry] = [:]
    /// Photos in failed/.
    public private(set) var failedIDs: Set<String> = []
    /// Retry times of the queue-fed destination's photos, by id.
    private(set) var notBefore: [String: Date] = [:]
    /// Upload names of photos still downloading (offered for cut-through), by id.
    private(set) var reservedNames: [String: String] = [:]
    /// Queued photos whose rendition is still to be made, and those being made now.
    private(set) var awaitingRendition: Set<String> = []
    private(set) var rendering: Set<String> = []
    /// The next sequence number to hand out, and the highest `.sequence` holds.
    public private(set) var nextSequence = 1
    public private(set) var persistedSequence = 0
    /// Several destinations only: each photo's progress per destination. Every sidecar write
    /// takes its `destinations` from here, so that a writer holding an older copy of the entry
    /// cannot put back an older progress.
    public private(set) var progress: [String: [String: DestinationProgress]] = [:]
    /// Several destinations only: photos the queue-fed destination settled that another still
    /// needs (their files stay).
    public private(set) var lingering: [String: SpoolEntry] = [:]
    private(set) var legsInFlight: Set<Leg> = []
    private(set) var legsNotBefore: [Leg: Date] = [:]
    /// Photos being removed or moved to failed/ once every destination settled.
    private(set) var finalizing: Set<String> = []
    /// False while the queue-fed destination cannot be reached: its queued photos then do not
    /// hold back a low-priority destination (nothing uses the uplink).
    public private(set) var queueFedReachable = true

    public init(destinations: SpoolDestinations?, makesRenditions: Bool) {
        self.destinations = destinations
        self.makesRenditions = makesRenditions
    }

    // MARK: - Photos in

    /// The queued, in-flight or lingering entry with this id.
    public func entry(_ id: String) -> SpoolEntry? {
        queued.first { $0.id == id } ?? inFlight[id] ?? lingering[id]
    }

    /// The content keys of the queued, in-flight and lingering photos that have one.
    public var contentKeys: [String] {
        (queued + inFlight.values + lingering.values).compactMap(\.contentKey)
    }

    /// Whether a queued, in-flight or lingering photo has this content key.
    public func containsContent(_ key: String) -> Bool {
        queued.contains { $0.contentKey == key } || inFlight.values.contains { $0.contentKey == key }
            || lingering.values.contains { $0.contentKey == key }
    }

    /// Whether a photo with this id is in the spool or failed/ (not delivered).
    public func contains(_ id: String) -> Bool {
        entry(id) != nil || failedIDs.contains(id)
    }

    /// Whether a photo of `bytes` fits within `limits`. An empty spool always has room, so that
    /// one photo larger than `maxBytes` can still pass.
    public func hasRoom(forBytes bytes: Int64, limits: SpoolLimits) -> Bool {
        let count = queued.count + inFlight.count + lingering.count
        if count == 0 { return true }
        return count < limits.maxPhotos && heldBytes + bytes <= limits.maxBytes
    }

    /// The bytes of every photo held (queued, in flight, waiting for another destination).
    public var heldBytes: Int64 {
        (queued + inFlight.values + lingering.values).reduce(Int64(0)) { $0 + $1.bytes }
    }

    public mutating func takeSequence() -> Int {
        let sequence = nextSequence
        nextSequence = nextSequence &+ 1
        return sequence
    }

    /// The photo's safe file name, made unique among those in the spool and those reserved by
    /// photos still downloading. A name the same photo reserved earlier (a download begun again
    /// after a drop) is its own.
    public func uniqueUploadName(for fileName: String, sequence: Int, id: String) -> String {
        let name = SafeFileName.make(fileName)
        let taken =
            (queued + inFlight.values + lingering.values).contains { $0.uploadName == name }
            || reservedNames.contains { $0.key != id && $0.value == name }
        return taken ? SafeFileName.withSuffix(name, "\(sequence)") : name
    }

    /// A photo still downloading keeps a sequence number and an upload name until it is committed.
    public mutating func reserve(for fileName: String, id: String) -> (sequence: Int, uploadName: String) {
        let sequence = takeSequence()
        let name = uniqueUploadName(for: fileName, sequence: sequence, id: id)
        reservedNames[id] = name
        return (sequence, name)
    }

    /// A download given up: its reserved name and retry time go (unless the photo is spooled).
    public mutating func forgetIncoming(_ id: String) {
        reservedNames[id] = nil
        if !queued.contains(where: { $0.id == id }) && inFlight[id] == nil { notBefore[id] = nil }
    }

    /// A committed photo: in flight for the worker that sent it while it downloaded, or queued
    /// (to wait for its rendition first, when the run makes them; `renditionUnderWay`: the
    /// rendition thread made it as the photo arrived, and finishes it).
    public mutating func admit(_ entry: SpoolEntry, inFlight sending: Bool, renditionUnderWay: Bool = false) {
        reservedNames[entry.id] = nil
        if let map = entry.destinations { progress[entry.id] = map }
        if sending {
            inFlight[entry.id] = entry
        } else {
            queued.append(entry)
            if makesRenditions { awaitingRendition.insert(entry.id) }
            if makesRenditions && renditionUnderWay { rendering.insert(entry.id) }
        }
    }

    // MARK: - The queue-fed destination

    /// The oldest queued photo due at `now` with its rendition made, now in flight, its attempt
    /// counted.
    public mutating func claimQueued(at now: Date, pid: Int32) -> SpoolEntry? {
        guard let index = queued.firstIndex(where: { isQueueDue($0.id, at: now) }) else { return nil }
        return takeInFlight(at: index, now: now, pid: pid)
    }

    /// The queued photo `id`, now in flight for the worker that sent its rendition while it was
    /// made, its attempt counted; nil unless it is queued with its rendition made.
    public mutating func claimQueued(_ id: String, at now: Date, pid: Int32) -> SpoolEntry? {
        guard let index = queued.firstIndex(where: { $0.id == id }), !awaitingRendition.contains(id) else { return nil }
        return takeInFlight(at: index, now: now, pid: pid)
    }

    /// Puts back in the queue (in sequence order, its retry time kept) a photo claimed with
    /// ``claimQueued(_:at:pid:)`` whose worker gave up before it could be handed over.
    public mutating func unclaim(_ id: String) -> SpoolEntry? {
        guard let claimed = inFlight.removeValue(forKey: id) else { return nil }
        let entry = Self.unclaimed(claimed)
        let position = queued.firstIndex { $0.sequence > entry.sequence } ?? queued.endIndex
        queued.insert(entry, at: position)
        return entry
    }

    /// `entry` as ``unclaim(_:)`` puts it back: its attempt not counted, not in flight.
    public static func unclaimed(_ entry: SpoolEntry) -> SpoolEntry {
        var queued = entry
        queued.attempts = max(0, entry.attempts - 1)
        queued.inFlightSince = nil
        queued.uploaderPID = nil
        return queued
    }

    private mutating func takeInFlight(at index: Int, now: Date, pid: Int32) -> SpoolEntry {
        var entry = queued.remove(at: index)
        entry.attempts = entry.attempts &+ 1
        entry.inFlightSince = now
        entry.uploaderPID = pid
        inFlight[entry.id] = entry
        return entry
    }

    /// When the earliest queued photo waiting for a retry is due (nil: none waits for a time).
    public var nextQueuedRetry: Date? {
        // A photo waiting for its rendition is not due whatever its time says: counting it would
        // wake idle workers again and again until the rendition is made.
        queued.filter { !awaitingRendition.contains($0.id) }.compactMap { notBefore[$0.id] }.min()
    }

    /// A photo uploaded while downloading that did not get through: not tried before `date`.
    public mutating func delay(_ id: String, until date: Date) {
        notBefore[id] = date
    }

    /// A retryable failure of the queue-fed destination: the entry its sidecar is to say, with its
    /// progress recorded. Put it back with ``requeue(_:notBefore:)`` once that sidecar is written.
    public mutating func recordRetry(_ entry: SpoolEntry, error: String?, statusCode: Int?) -> SpoolEntry {
        var again = entry
        again.inFlightSince = nil
        again.uploaderPID = nil
        again.lastError = error
        again.lastStatusCode = statusCode
        if let primary = destinations?.primary.id {
            progress[entry.id]?[primary]?.attempts = entry.attempts
            progress[entry.id]?[primary]?.lastError = error
            progress[entry.id]?[primary]?.lastStatusCode = statusCode
        }
        return again
    }

    /// Back in the queue, in sequence order, not before `date`.
    public mutating func requeue(_ entry: SpoolEntry, notBefore date: Date) {
        inFlight[entry.id] = nil
        notBefore[entry.id] = date
        let position = queued.firstIndex { $0.sequence > entry.sequence } ?? queued.endIndex
        queued.insert(entry, at: position)
    }

    /// The queue-fed destination is done with the photo (delivered or failed for good).
    public mutating func finish(_ id: String) {
        inFlight[id] = nil
        notBefore[id] = nil
    }

    /// The photo is in failed/.
    public mutating func markFailed(_ id: String) {
        failedIDs.insert(id)
    }

    /// A photo back from failed/ (`relay retry`): queued in sequence order.
    public mutating func readmit(_ entry: SpoolEntry, needsRendition: Bool) {
        failedIDs.remove(entry.id)
        queued.append(entry)
        if needsRendition { awaitingRendition.insert(entry.id) }
        queued.sort { $0.sequence < $1.sequence }
    }

    /// Whether the queue-fed destination can be reached.
    public mutating func setQueueFedReachable(_ reachable: Bool) {
        queueFedReachable = reachable
    }

    private func isQueueDue(_ id: String, at now: Date) -> Bool {
        (notBefore[id] ?? .distantPast) <= now && !awaitingRendition.contains(id)
    }

    // MARK: - Renditions

    /// The oldest queued photo whose rendition is to be made, now being made.
    public mutating func claimRendition() -> SpoolEntry? {
        guard let entry = queued.first(where: { awaitingRendition.contains($0.id) && !rendering.contains($0.id) }) else { return nil }
        rendering.insert(entry.id)
        return entry
    }

    /// The thread making the photo's rendition as it downloaded gave it up: it is made again
    /// from the spooled photo.
    public mutating func renditionGivenBack(_ id: String) {
        rendering.remove(id)
    }

    /// The photo's rendition is made (or it is sent as the original): the queue may hand it out.
    public mutating func renditionDone(_ id: String, _ rendition: SpoolRendition?) {
        if let index = queued.firstIndex(where: { $0.id == id }) { queued[index].rendition = rendition }
        awaitingRendition.remove(id)
        rendering.remove(id)
    }

    // MARK: - Every other destination

    /// The oldest photo due at `now` for `destination` (not the queue-fed one), now in flight
    /// there, its attempt counted. A low-priority destination gets nothing while anything of
    /// normal priority is due or being sent (`uploadingWhileDownloading`: a photo is being sent
    /// as it downloads).
    public mutating func claim(for destination: String, at now: Date, uploadingWhileDownloading: Bool = false) -> SpoolEntry? {
        guard let me = destinations?.others.first(where: { $0.id == destination }) else { return nil }
        let candidates = (queued + inFlight.values + lingering.values).sorted { $0.sequence < $1.sequence }
        if me.lowPriority && normalWorkWaiting(candidates, at: now, uploadingWhileDownloading: uploadingWhileDownloading) { return nil }
        guard let entry = candidates.first(where: { isDue($0.id, for: me.id, at: now) }) else { return nil }
        progress[entry.id]?[me.id]?.attempts += 1
        legsInFlight.insert(Leg(id: entry.id, destination: me.id))
        var claimed = entry
        claimed.destinations = progress[entry.id]
        return claimed
    }

    /// How a delivery to `destination` (not the queue-fed one) ended. Returns the photo's entry
    /// while it is in the spool (its sidecar is to be written), nil once it is gone.
    public mutating func settle(_ id: String, for destination: String, _ result: DestinationResult, at now: Date) -> SpoolEntry? {
        let leg = Leg(id: id, destination: destination)
        legsInFlight.remove(leg)
        guard var state = progress[id]?[destination] else { return nil }
        switch result {
        case .delivered:
            state.state = .delivered
            state.lastError = nil
        case .retry(let after, let error, let statusCode):
            state.lastError = error
            state.lastStatusCode = statusCode
            legsNotBefore[leg] = now.addingTimeInterval(max(0, after))
        case .failed(let error, let statusCode):
            state.state = .failed
            state.lastError = error
            state.lastStatusCode = statusCode
        }
        progress[id]?[destination] = state
        return entry(id)
    }

    /// The queue-fed destination delivered or refused the photo: it waits for the others (its
    /// entry, as its sidecar is to say, is returned).
    public mutating func settleQueueFed(
        _ entry: SpoolEntry, _ state: DestinationProgress.State, error: String?, statusCode: Int?
    ) -> SpoolEntry {
        var waiting = entry
        waiting.inFlightSince = nil
        waiting.uploaderPID = nil
        if state == .failed {
            waiting.lastError = error
            waiting.lastStatusCode = statusCode
        }
        if let primary = destinations?.primary {
            var mine = progress[entry.id]?[primary.id] ?? DestinationProgress(label: primary.label)
            mine.state = state
            mine.attempts = entry.attempts
            mine.lastError = error
            mine.lastStatusCode = statusCode
            progress[entry.id, default: [:]][primary.id] = mine
        }
        lingering[entry.id] = waiting
        finish(entry.id)
        return waiting
    }

    /// Whether no destination has the photo queued or in flight any more.
    public func isSettled(_ id: String) -> Bool {
        progress[id].map { PhotoDestinations.settlement($0) != .waiting } ?? false
            && !legsInFlight.contains { $0.id == id }
    }

    /// A lingering photo every destination settled: from now on it is being finished (removed or
    /// moved to failed/, as its progress says). Nil while a destination still needs it, or when
    /// it is being finished already.
    public mutating func beginFinishing(_ id: String) -> (entry: SpoolEntry, progress: [String: DestinationProgress])? {
        guard !finalizing.contains(id), var entry = lingering[id], let map = progress[id], isSettled(id) else { return nil }
        finalizing.insert(id)
        entry.destinations = map
        return (entry, map)
    }

    /// The finished photo is gone from the ledger.
    public mutating func endFinishing(_ id: String) {
        finalizing.remove(id)
        lingering[id] = nil
        progress[id] = nil
        for leg in legsNotBefore.keys where leg.id == id { legsNotBefore[leg] = nil }
    }

    /// Whether the photo is still in the spool and not being finished (a late sidecar write
    /// must not bring back the sidecar of a photo that left).
    public func isPending(_ id: String) -> Bool {
        !finalizing.contains(id) && entry(id) != nil
    }

    /// Forgets what the queued photo `id` owes the destinations `query` names (the user released
    /// them). Returns the entry with what it still owes, nil when none of them waits for it. A
    /// photo settled by that is taken out of the queue: finish it as its settlement says.
    public mutating func release(_ id: String, matching query: String) -> SpoolEntry? {
        guard let index = queued.firstIndex(where: { $0.id == id }), let map = queued[index].destinations,
            let kept = PhotoDestinations.release(map, matching: query)
        else { return nil }
        if progress[id] != nil { progress[id] = kept }
        var entry = queued[index]
        entry.destinations = kept
        if PhotoDestinations.settlement(kept) == .waiting {
            queued[index] = entry
        } else {
            queued.remove(at: index)
            progress[id] = nil
        }
        return entry
    }

    private func isDue(_ id: String, for destination: String, at now: Date) -> Bool {
        let leg = Leg(id: id, destination: destination)
        return progress[id]?[destination]?.state == .queued && !legsInFlight.contains(leg)
            && (legsNotBefore[leg] ?? .distantPast) <= now && !finalizing.contains(id)
    }

    /// Whether a destination of normal priority has a photo due or in flight.
    private func normalWorkWaiting(_ candidates: [SpoolEntry], at now: Date, uploadingWhileDownloading: Bool) -> Bool {
        guard let destinations else { return false }
        if !inFlight.isEmpty || uploadingWhileDownloading { return true }
        if queueFedReachable && (!awaitingRendition.isEmpty || queued.contains { (notBefore[$0.id] ?? .distantPast) <= now }) {
            return true
        }
        for other in destinations.others where !other.lowPriority {
            if candidates.contains(where: { isDue($0.id, for: other.id, at: now) }) { return true }
            if legsInFlight.contains(where: { $0.destination == other.id }) { return true }
        }
        return false
    }

    // MARK: - Start

    /// The numbers found at start: the highest `.sequence` holds and the highest any sidecar
    /// carries; the next photo gets the number after both.
    public mutating func startNumbering(persisted: Int, highestFound: Int) {
        persistedSequence = persisted
        let highest = max(persisted, highestFound)
        nextSequence = highest == Int.max ? highest : highest + 1
    }

    /// The photos in failed/ at start.
    public mutating func startFailed(_ ids: Set<String>) {
        failedIDs = ids
    }

    /// A photo found in the spool at start. It takes its recorded destinations (or, from an
    /// older relay that recorded none, the run's: `adopted`); one the queue-fed destination
    /// settled lingers for the others (`queued` false); the rest are for ``resumeQueued(_:needsRendition:)``.
    public mutating func resume(_ entry: SpoolEntry) -> (entry: SpoolEntry, adopted: Bool, queued: Bool) {
        failedIDs.remove(entry.id)
        var found = entry
        found.inFlightSince = nil
        found.uploaderPID = nil
        guard let destinations else { return (found, false, true) }
        let resumed = PhotoDestinations.resume(entry.destinations, run: destinations)
        found.destinations = resumed.map
        progress[entry.id] = resumed.map
        if !resumed.forPrimary { lingering[entry.id] = found }
        return (found, resumed.adopted, resumed.forPrimary)
    }

    /// A photo found at start that the queue-fed destination still has to take, in sequence order.
    public mutating func resumeQueued(_ entry: SpoolEntry, needsRendition: Bool) {
        let position = queued.firstIndex { $0.sequence > entry.sequence } ?? queued.endIndex
        queued.insert(entry, at: position)
        if needsRendition { awaitingRendition.insert(entry.id) }
    }

    // MARK: - Numbers

    /// The number `.sequence` is to hold before the last record of `sequence` goes, nil when it
    /// holds it already or a photo in the spool with a higher number carries it.
    public func sequenceToPersist(atLeast sequence: Int) -> Int? {
        guard sequence > persistedSequence else { return nil }
        let carriedByAnother = queued.contains { $0.sequence > sequence } || inFlight.values.contains { $0.sequence > sequence }
        return carriedByAnother ? nil : max(sequence, nextSequence - 1)
    }

    public mutating func persisted(_ sequence: Int) {
        persistedSequence = max(persistedSequence, sequence)
    }
}
