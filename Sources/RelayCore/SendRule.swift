/// Which photos a destination is sent (`relay config add --send`, JSON `"send"`): every one, or
/// only those a person approved (`relay review`, the editor's page) or the photographer selected
/// in the camera. A photo whose rule is not met is held for that destination, in the spool,
/// while its other destinations get it at once.
public enum SendRule: String, Codable, Sendable, CaseIterable {
    /// Every photo, at once (relay's behaviour before rules, and the default).
    case all
    /// Photos a person approved.
    case approved
    /// Photos the photographer selected in the camera (protected or rated).
    case selected
    /// Photos approved or selected, whichever comes first.
    case approvedOrSelected = "approved-or-selected"

    /// What becomes of a photo's leg to a destination with this rule, given the decision on it
    /// (nil: none yet) and whether the photographer selected it.
    public func fate(verdict: ReviewVerdict?, selected: Bool) -> LegFate {
        switch self {
        case .all: return .send
        case .approved where verdict == .approved, .selected where selected, .approvedOrSelected where verdict == .approved || selected:
            return .send
        default: return verdict == .rejected ? .rejected : .held
        }
    }

    /// Whether photos may wait for a decision here (every rule but `all`).
    public var holds: Bool { self != .all }

    /// Whether the rule reads the photographer's selection in the camera (its rating, protection
    /// and transfer requests): then each photo's rating is read from its file, and
    /// `--min-rating` and `--count-protected` mean something.
    public var readsSelection: Bool { self == .selected || self == .approvedOrSelected }
}

/// A person's decision on a held photo.
public enum ReviewVerdict: String, Codable, Sendable, Equatable {
    case approved, rejected
}

/// Where a photo's leg to one destination stands under its rule.
public enum LegFate: Sendable, Equatable {
    /// It may go.
    case send
    /// It waits for a decision (or a selection).
    case held
    /// A person rejected it: it is never sent there.
    case rejected
}
