import Foundation

/// One decision on a held photo, as the review journal keeps it: approve, reject, or undo the
/// last decision (before the photo was sent).
public struct ReviewDecision: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        case approve, reject, undo
    }

    /// The photo's spool id.
    public var photo: String
    public var kind: Kind
    public var at: Date
    /// Who decided, for the history: `relay review`, or the editor's page and its address.
    public var by: String

    public init(photo: String, kind: Kind, at: Date = Date(), by: String) {
        self.photo = photo
        self.kind = kind
        self.at = at
        self.by = by
    }
}

/// The verdict on each photo after a journal's decisions, in order (pure): the last approve or
/// reject stands, and an undo takes it back.
public struct ReviewVerdicts: Sendable, Equatable {
    public private(set) var byPhoto: [String: ReviewVerdict] = [:]

    public init(_ decisions: [ReviewDecision] = []) {
        apply(decisions)
    }

    public mutating func apply(_ decisions: [ReviewDecision]) {
        for decision in decisions {
            switch decision.kind {
            case .approve: byPhoto[decision.photo] = .approved
            case .reject: byPhoto[decision.photo] = .rejected
            case .undo: byPhoto[decision.photo] = nil
            }
        }
    }

    public subscript(photo: String) -> ReviewVerdict? { byPhoto[photo] }
}
