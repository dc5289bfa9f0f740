import Foundation

/// One decision on a held photo, as the review journal keeps it: approve, reject, or undo the
/// last decision (before the photo was sent), or the editor's caption and title for it.
public struct ReviewDecision: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        case approve, reject, undo
        /// The editor's caption and title (``ReviewDecision/caption``), replacing an earlier one.
        case caption

        /// Approve, reject or undo: what decides where a photo goes.
        public var isVerdict: Bool { self != .caption }
    }

    /// The photo's spool id.
    public var photo: String
    public var kind: Kind
    public var at: Date
    /// Who decided, for the history: `relay review`, or the editor's page and its address.
    public var by: String
    /// A `caption` line's text (nil on a verdict).
    public var caption: PhotoCaption?

    public init(photo: String, kind: Kind, at: Date = Date(), by: String) {
        self.photo = photo
        self.kind = kind
        self.at = at
        self.by = by
    }

    /// The editor's caption and title for `photo` (both empty: cleared).
    public init(photo: String, caption: PhotoCaption, at: Date = Date(), by: String) {
        self.init(photo: photo, kind: .caption, at: at, by: by)
        self.caption = caption
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
            case .caption: continue
            }
        }
    }

    public subscript(photo: String) -> ReviewVerdict? { byPhoto[photo] }
}

/// Where the editor's desk stands on a photo still in the spool.
public enum DeskState: String, Codable, Sendable, CaseIterable {
    /// A destination holds it for a decision.
    case undecided
    /// Approved, on its way.
    case approved
    /// Rejected, while the rejection can still be undone.
    case rejected
}
