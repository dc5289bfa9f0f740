import Foundation
import RelayCore

/// Photos held for a decision, and the decisions on them (`relay review`, the editor's page),
/// as the run saw them.
public enum ReviewEvent: Sendable, Equatable {
    /// A photo came in held for these destinations (by label): their rules wait for a decision.
    case held(PhotoRef, destinations: [String])
    /// A decision reached the run (`verdict` nil: the last one undone), by `by`, and what it did.
    case decided(PhotoRef, verdict: ReviewVerdict?, by: String, outcome: ReviewOutcome)
    /// The photographer's marks on a photo changed in the camera `camera` (issue 41): what they
    /// are now (``PhotoSelection/marks``, empty: none), and what that did.
    case selected(PhotoRef, marks: String, camera: String, outcome: ReviewOutcome)
}

/// What a decision did at each destination that holds photos (by label).
public struct ReviewOutcome: Sendable, Equatable {
    /// They send the photo now.
    public var released: [String] = []
    /// They never get it.
    public var rejected: [String] = []
    /// They wait for a decision again (an undo).
    public var heldAgain: [String] = []
    /// They already had it (or were sending it): the decision changed nothing there.
    public var alreadySent: [String] = []
    /// Its rejection there was too long ago to undo: it stands.
    public var tooLate: [String] = []

    /// Whether a destination sends, holds or rejects the photo differently now.
    public var changedAnything: Bool { !(released.isEmpty && rejected.isEmpty && heldAgain.isEmpty) }

    public init(
        released: [String] = [], rejected: [String] = [], heldAgain: [String] = [], alreadySent: [String] = [], tooLate: [String] = []
    ) {
        self.released = released
        self.rejected = rejected
        self.heldAgain = heldAgain
        self.alreadySent = alreadySent
        self.tooLate = tooLate
    }
}

extension ReviewEvent {
    /// `photo.held`, `photo.approved`, `photo.rejected`, `photo.undone`.
    var jsonType: String {
        switch self {
        case .held: "photo.held"
        case .decided(_, .approved?, _, _): "photo.approved"
        case .decided(_, .rejected?, _, _): "photo.rejected"
        case .decided(_, nil, _, _): "photo.undone"
        case .selected: "photo.selected"
        }
    }

    var jsonFields: [String: JSONValue] {
        switch self {
        case .held(let photo, let destinations):
            photo.jsonFields.merging(["destinations": .array(destinations.map(JSONValue.string))]) { $1 }
        case .decided(let photo, _, let by, let outcome):
            photo.jsonFields.merging([
                "by": .string(by), "released": .array(outcome.released.map(JSONValue.string)),
                "rejected": .array(outcome.rejected.map(JSONValue.string)), "heldAgain": .array(outcome.heldAgain.map(JSONValue.string)),
                "alreadySent": .array(outcome.alreadySent.map(JSONValue.string)),
                "tooLate": .array(outcome.tooLate.map(JSONValue.string)),
            ]) { $1 }
        case .selected(let photo, let marks, let camera, let outcome):
            photo.jsonFields.merging([
                "marks": .string(marks), "camera": .string(camera), "released": .array(outcome.released.map(JSONValue.string)),
                "heldAgain": .array(outcome.heldAgain.map(JSONValue.string)),
                "alreadySent": .array(outcome.alreadySent.map(JSONValue.string)),
            ]) { $1 }
        }
    }
}
