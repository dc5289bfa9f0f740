import Foundation
import RelayCore

/// A photo in the spool as a reviewer sees it: which destinations hold it for a decision, which
/// have it, and the verdict on it so far. Made from the sidecars (read without a running relay's
/// lock), the configs' rules and the review journal, by the same rule the ledger judges legs by.
public struct HeldPhoto: Sendable, Equatable {
    public var entry: SpoolEntry
    /// The photo's verdict so far (nil: none).
    public var verdict: ReviewVerdict?
    /// Destinations (labels) that hold it for a decision.
    public var heldFor: [String]
    /// Destinations (labels) whose rule holds photos and that already have it (or refused it).
    public var sentTo: [String]
    /// Destinations (labels) that will never get it (rejected).
    public var rejectedFor: [String]
    /// Of those, the ones whose rejection is too old to undo (``PhotoLedger/undoWindow``).
    public var finallyRejectedFor: [String]
    /// Destinations (labels) whose rule holds photos that are to send it (approved or selected,
    /// not sent yet).
    public var goingTo: [String]

    /// What each destination of `entry` whose rule holds photos (`rules`, by config id, with
    /// what each counts as selected) makes of it, given `verdict`.
    public init(
        _ entry: SpoolEntry, rules: [String: (rule: SendRule, selection: SelectionPolicy)], verdict: ReviewVerdict?, now: Date = Date()
    ) {
        self.entry = entry
        self.verdict = verdict
        heldFor = []
        sentTo = []
        rejectedFor = []
        finallyRejectedFor = []
        goingTo = []
        for (id, progress) in (entry.destinations ?? [:]).sorted(by: { $0.value.label < $1.value.label }) {
            guard let (rule, selection) = rules[id], rule.holds else { continue }
            switch progress.state {
            case .delivered, .failed: sentTo.append(progress.label)
            case .rejected:
                rejectedFor.append(progress.label)
                if let decided = progress.decidedAt, now >= decided.addingTimeInterval(PhotoLedger.undoWindow) {
                    finallyRejectedFor.append(progress.label)
                }
            case .queued:
                switch rule.fate(verdict: verdict, selected: entry.isSelected(selection)) {
                case .held: heldFor.append(progress.label)
                case .rejected: rejectedFor.append(progress.label)
                case .send: goingTo.append(progress.label)
                }
            }
        }
    }

    /// Whether a destination waits for a decision on it.
    public var isHeld: Bool { !heldFor.isEmpty }
}
