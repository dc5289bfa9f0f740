import Foundation
import RelayCore

/// Held legs: a leg whose destination's rule (``SendRule``) the photo does not meet waits for a
/// decision; a person's verdict (``Input/decide(id:verdict:)``) sends it, rejects it, or, undone,
/// holds it again. A leg already sent, or in flight, is not changed by a decision.
extension PhotoLedger {
    /// What a decision did to each of the photo's legs that this run delivers to.
    public struct Decision: Sendable, Equatable {
        public enum Change: Sendable, Equatable {
            /// It may go now (it was held, or rejected and the rejection was undone).
            case released
            /// It waits for a decision again (an undone approval or rejection).
            case heldAgain
            /// It is never sent there.
            case rejected
            /// It was already sent (or is being sent): the decision changes nothing.
            case alreadySent
            /// Its rejection was made longer ago than ``PhotoLedger/undoWindow``: it stands.
            case tooLate
            /// Its rule does not wait for decisions (`all`), or did not change.
            case unchanged
        }

        public var destination: String
        public var label: String
        public var change: Change
    }

    /// The legs of `id` as its verdict and each destination's rule say, with what changed. A
    /// rejection the sidecar recorded stands until a decision (`reconsidering`) undoes it.
    mutating func judge(_ id: String, reconsidering: Bool, now: Date = .distantPast) -> [Decision] {
        guard let photo = photos[id], var legs = photo.legs else { return [] }
        var decisions: [Decision] = []
        for destination in destinations.all {
            guard var leg = legs[destination.id] else { continue }
            let before = leg.state(at: .distantPast)
            let change: Decision.Change
            if leg.inFlight != nil || leg.progress.state == .delivered || leg.progress.state == .failed {
                change = destination.rule.holds ? .alreadySent : .unchanged
            } else if leg.progress.state == .rejected && !reconsidering {
                change = .unchanged
            } else if let until = leg.undoableUntil, now >= until {
                change =
                    destination.rule.fate(verdict: photo.verdict, selected: photo.selected(for: destination)) == .rejected
                    ? .unchanged : .tooLate
            } else {
                switch destination.rule.fate(verdict: photo.verdict, selected: photo.selected(for: destination)) {
                case .send:
                    leg.progress.state = .queued
                    leg.progress.decidedAt = nil
                    leg.held = false
                case .held:
                    leg.progress.state = .queued
                    leg.progress.decidedAt = nil
                    leg.held = true
                case .rejected:
                    if leg.progress.state != .rejected { leg.progress.decidedAt = now }
                    leg.progress.state = .rejected
                    leg.held = false
                }
                change = Self.change(from: before, to: leg.state(at: .distantPast))
            }
            legs[destination.id] = leg
            decisions.append(Decision(destination: destination.id, label: destination.label, change: change))
        }
        photos[id]?.legs = legs
        return decisions
    }

    private static func change(from before: Leg.State, to after: Leg.State) -> Decision.Change {
        guard before != after else { return .unchanged }
        switch after {
        case .rejected: return .rejected
        case .held: return .heldAgain
        default: return .released
        }
    }

    /// `verdict` (nil: undone) on the photo `id` at `now`: its legs judged again, the sidecar
    /// written when a leg was rejected or brought back. A photo whose last leg is rejected stays
    /// ``undoWindow`` for an undo; a later ``Input/tick(now:)`` finishes it.
    mutating func decide(_ id: String, verdict: ReviewVerdict?, now: Date) -> Step {
        guard let photo = photos[id], !photo.finishing else { return Step(answer: .decided(nil)) }
        photos[id]?.verdict = verdict
        return rejudged(id, judge(id, reconsidering: true, now: now), now: now)
    }

    /// What the photographer marked in the camera on the photo `id`, learnt after it came in
    /// (an event, a re-read header): its legs judged again by their rules. A person's rejection
    /// stands; a leg already sent (or in flight) does not change. The sidecar keeps the marks.
    mutating func select(_ id: String, _ selection: PhotoSelection, now: Date) -> Step {
        guard let photo = photos[id], !photo.finishing else { return Step(answer: .decided(nil)) }
        guard photo.entry.selection != selection else { return Step(answer: .decided([])) }
        photos[id]?.entry.selection = selection
        var step = rejudged(id, judge(id, reconsidering: false, now: now), now: now)
        if step.actions.isEmpty { step.actions = [.saveSidecar(id: id)] }
        return step
    }

    /// The step after `id`'s legs were judged again: the sidecar written when a leg changed,
    /// the photo finished when its last leg settled, its rendition removed or awaited.
    private mutating func rejudged(_ id: String, _ decisions: [Decision], now: Date) -> Step {
        let persisted = decisions.contains { $0.change == .rejected || $0.change == .released || $0.change == .heldAgain }
        guard persisted else { return Step(answer: .decided(decisions)) }
        let finishing = finishIfSettled(id, now: now)
        // A rejected leg's rendition goes; an undone rejection (or a change of mind) needs it again.
        let actions = finishing.isEmpty ? reconcileRenditions(id) + [.saveSidecar(id: id)] : finishing
        return Step(actions, answer: .decided(decisions))
    }

    /// How many photos are held for at least one of this run's destinations, and their bytes
    /// (counted without copying their entries: the run asks twice a second).
    public var heldUsage: (photos: Int, bytes: Int64) {
        var usage = (photos: 0, bytes: Int64(0))
        for photo in photos.values where !photo.finishing {
            guard let legs = photo.legs, destinations.all.contains(where: { legs[$0.id]?.held == true && legs[$0.id]?.isQueued == true })
            else { continue }
            usage.photos += 1
            usage.bytes += photo.entry.bytes
        }
        return usage
    }

    /// The photos in the spool held for at least one of this run's destinations, oldest first,
    /// each with the labels of the destinations that hold it.
    public var heldPhotos: [(entry: SpoolEntry, destinations: [String])] {
        order.compactMap { id in
            guard let photo = photos[id], !photo.finishing, let legs = photo.legs else { return nil }
            let holding = destinations.all.filter { legs[$0.id]?.held == true && legs[$0.id]?.isQueued == true }.map(\.label)
            return holding.isEmpty ? nil : (photo.snapshot, holding)
        }
    }
}

/// A photo on the editor's desk: held for a decision, or decided and still in the spool (an
/// approved photo on its way, a rejected one while its rejection can be undone).
public struct DeskPhoto: Sendable {
    public var entry: SpoolEntry
    public var state: DeskState
    /// The destinations (labels) concerned: holding it, sending it, or that rejected it.
    public var destinations: [String]
    /// Until when a rejection can be undone.
    public var undoableUntil: Date?

    public init(entry: SpoolEntry, state: DeskState, destinations: [String], undoableUntil: Date? = nil) {
        self.entry = entry
        self.state = state
        self.destinations = destinations
        self.undoableUntil = undoableUntil
    }
}

extension PhotoLedger {
    /// The photos on the editor's desk at `now`, oldest first: every photo some destination
    /// holds for a decision, and those decided whose destinations that hold photos still
    /// concern them (approved, not yet finished; rejected, within ``undoWindow``).
    public func deskPhotos(at now: Date) -> [DeskPhoto] {
        let holding = destinations.all.filter(\.rule.holds)
        return order.compactMap { id in
            guard let photo = photos[id], !photo.finishing, let legs = photo.legs else { return nil }
            let mine = holding.compactMap { destination in legs[destination.id].map { (destination.label, $0) } }
            let held = mine.filter { $0.1.held && $0.1.isQueued }.map(\.0)
            if !held.isEmpty { return DeskPhoto(entry: photo.snapshot, state: .undecided, destinations: held) }
            switch photo.verdict {
            case .approved?:
                let going = mine.filter { $0.1.progress.state != .rejected }.map(\.0)
                return going.isEmpty ? nil : DeskPhoto(entry: photo.snapshot, state: .approved, destinations: going)
            case .rejected?:
                let undoable = mine.filter { ($0.1.undoableUntil ?? .distantPast) > now }
                guard let until = undoable.compactMap(\.1.undoableUntil).max() else { return nil }
                return DeskPhoto(entry: photo.snapshot, state: .rejected, destinations: undoable.map(\.0), undoableUntil: until)
            case nil:
                return nil
            }
        }
    }
}

extension [PhotoLedger.Decision] {
    /// The labels of the destinations where the decision made `change`, in order.
    public func labels(_ change: PhotoLedger.Decision.Change) -> [String] {
        filter { $0.change == change }.map(\.label)
    }
}
