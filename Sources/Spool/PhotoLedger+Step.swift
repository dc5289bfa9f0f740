import Foundation
import RelayCore

/// What the ledger gives back for each input: an answer for the caller (a photo to send, a time
/// to wait until) and the things the Spool is to do (files, sidecars, hand-overs), kept apart so
/// that the Spool runs every action and reads the answer by its type.
extension PhotoLedger {
    /// What one input comes to: what the caller is told, and what the Spool is to do, in order.
    public struct Step: Sendable, Equatable {
        public var answer: Answer
        public var actions: [Action]

        public init(_ actions: [Action] = [], answer: Answer = .nothing) {
            self.answer = answer
            self.actions = actions
        }

        /// Whether the input only got "wait" or "closed" and changed nothing: an observer told
        /// of it would look again, ask again, and spin.
        public var changesNothing: Bool {
            guard actions.isEmpty else { return false }
            switch answer {
            case .wait, .closed: return true
            default: return false
            }
        }
    }

    /// What the caller of an input is told.
    public enum Answer: Sendable, Equatable {
        /// Nothing to say.
        case nothing
        /// The claiming worker's work.
        case handOut(Handout)
        /// The rendition thread's work.
        case render(RenditionJob)
        /// No work yet: ask again at this time, or on the next change (nil).
        case wait(until: Date?)
        /// The spool is closed (or the destination is not the run's): the caller stops.
        case closed
        /// A sidecar found at start, from an older relay, took the run's destinations.
        case adopted
        /// The photo `release` changed.
        case released(SpoolEntry)
        /// How a worker's reading during the download ended for it.
        case cutThrough(OfferOutcome)
        /// What a decision (or a selection in the camera) did to each leg of the photo (nil: it
        /// is not in the spool).
        case decided([Decision]?)
    }

    /// What the Spool is to do.
    public enum Action: Sendable, Equatable {
        /// End the offer's reading: the photo is in flight for its reader, or it is not.
        case end(offer: Int, OfferOutcome)
        /// Write the photo's sidecar, then tell ``Input/handedOver(id:offer:saved:)``.
        case handOver(offer: Int, SpoolEntry)
        /// Write the photo's sidecar as the ledger has it now (skipped once it is finishing).
        case saveSidecar(id: String)
        /// Every leg settled: remove the photo (delivered) or move it to failed/ (refused),
        /// then tell ``Input/finished(id:)``.
        case finish(SpoolEntry, PhotoDestinations.Settlement)
        /// Make `.sequence` hold `atLeast` (the number is carried by no sidecar).
        case persistSequence(atLeast: Int)
        /// Remove a file of the photo's: it is no longer needed.
        case removePhoto(id: String)
        case removeRendition(id: String, spec: String)
        case removeSidecar(id: String)
        /// Remove the photo's sidecar in failed/.
        case removeFailedSidecar(id: String)
    }
}
