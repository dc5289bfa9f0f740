import Foundation
import RelayCore

/// One photo on its way to one destination. Every destination of a photo is a leg of this one
/// kind: queued, held for a decision, in flight, waiting until a retry time, delivered, failed
/// or rejected.
public struct Leg: Sendable, Equatable {
    /// A worker is sending the photo (`offer`: it took it while it downloaded, by that offer).
    public struct InFlight: Sendable, Equatable {
        public var since: Date
        public var offer: Int?
    }

    /// Where a leg stands.
    public enum State: Sendable, Equatable {
        case queued
        /// Its destination's rule is not met yet (``SendRule``): it waits for a decision.
        case held
        case inFlight
        case waiting(until: Date)
        case delivered
        case failed
        case rejected
    }

    /// What the photo's sidecar keeps of the leg (queued, delivered or failed; attempts, last error).
    public var progress: DestinationProgress
    public var inFlight: InFlight?
    /// Not tried again before this time (a retry).
    public var notBefore: Date?
    /// Waits for a decision: its destination's rule is not met (not kept in the sidecar; the
    /// ledger judges it again from the rule and the decisions whenever the photo comes in).
    public var held = false

    public init(_ progress: DestinationProgress) {
        self.progress = progress
    }

    /// Still to go: queued, held, in flight or waiting.
    public var isQueued: Bool { progress.state == .queued }

    public func state(at now: Date) -> State {
        switch progress.state {
        case .delivered: return .delivered
        case .failed: return .failed
        case .rejected: return .rejected
        case .queued:
            if inFlight != nil { return .inFlight }
            if held { return .held }
            if let notBefore, notBefore > now { return .waiting(until: notBefore) }
            return .queued
        }
    }

    /// Until when its rejection can be undone (nil: it is not rejected, or not by a person).
    public var undoableUntil: Date? {
        guard progress.state == .rejected, let decided = progress.decidedAt else { return nil }
        return decided.addingTimeInterval(PhotoLedger.undoWindow)
    }

    /// Whether a worker may take it at `now`.
    func isDue(at now: Date) -> Bool { state(at: now) == .queued }

    static func legs(_ map: [String: DestinationProgress]) -> [String: Leg] {
        map.mapValues(Leg.init)
    }
}

/// A photo in the ledger: its entry (as its sidecar says, without the legs), its legs, and the
/// stage of each rendition a queued leg of it takes.
struct LedgerPhoto: Sendable {
    enum Rendition: Sendable, Equatable {
        /// To be made before a leg that takes it may go.
        case awaiting
        /// Being made by the rendition thread (`offer`: from the photo as it downloaded).
        case making(offer: Int?)
        /// Made (or the original goes instead): its legs may go.
        case made
    }

    var entry: SpoolEntry
    /// A person's decision on the photo, as the review journal has it (nil: none).
    var verdict: ReviewVerdict?
    /// By destination id; nil when its sidecar recorded none (a spool only looked after, holding
    /// a photo from an older relay): a run that delivers adopts its destinations.
    var legs: [String: Leg]?
    /// By spec (``RenditionSpec/key``): only the specs a queued leg of this run takes.
    var renditions: [String: Rendition] = [:]
    /// Every leg settled: its files are being removed or moved to failed/.
    var finishing = false

    /// The entry is kept without ``SpoolEntry/rendition``: that names what one worker is sent
    /// (a sidecar from an older relay that carries one has it made again, per spec).
    init(_ entry: SpoolEntry, legs: [String: Leg]?) {
        var stored = entry
        stored.destinations = nil
        stored.rendition = nil
        self.entry = stored
        self.legs = legs
    }

    /// The entry as its sidecar is to say it: with every leg's progress.
    var snapshot: SpoolEntry {
        var entry = entry
        entry.destinations = legs?.mapValues(\.progress)
        return entry
    }

    /// The entry a worker of `destination` is handed: its leg's attempts, and the rendition it
    /// takes, if any (``Spool/uploadURL(for:)`` then gives that file, else the original).
    func entry(for destination: SpoolDestination) -> SpoolEntry {
        var entry = snapshot
        if let leg = legs?[destination.id] {
            entry.attempts = leg.progress.attempts
            entry.inFlightSince = leg.inFlight?.since
        }
        entry.rendition = destination.rendition.flatMap { entry.renditions?[$0] }
        return entry
    }

    var isInFlight: Bool { legs?.values.contains { $0.inFlight != nil } ?? false }

    /// Whether the photographer selected it for `destination`.
    func selected(for destination: SpoolDestination) -> Bool { entry.isSelected(destination.selection) }

    /// Its rendition for `spec` is still to be made (or being made): a leg that takes it cannot
    /// go yet. A leg that takes the original (nil) never waits.
    func waitsForRendition(_ spec: String?) -> Bool {
        guard let spec, let stage = renditions[spec] else { return false }
        return stage != .made
    }
}

/// A photo (or its rendition) offered while it downloads, as the ledger keeps it: the hand-over
/// is named by `offer`, so that a download offered again after a withdrawal is a new one.
struct Offer: Sendable, Equatable {
    enum Stage: Sendable, Equatable {
        /// Waiting for a reader.
        case offered
        /// A worker of this destination is reading it.
        case claimed(by: String)
        /// The rendition thread is reading it, to make the rendition for `spec`.
        case rendering(spec: String)
        /// Its download is complete and being committed: no new reader.
        case closing
        /// A rendition upload whose photo is claimed for its worker; its sidecar is being written.
        case handingOver(to: String)
    }

    var offer: Int
    /// The entry the photo will have (its size is 0 when not known before its end).
    var entry: SpoolEntry
    var stage: Stage = .offered
}
