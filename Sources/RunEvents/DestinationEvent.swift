import Foundation

/// A destination's state (named by its config's label in `RunEvent.destination`).
public enum DestinationEvent: Sendable, Equatable {
    /// It cannot be reached; photos wait in the spool and the next try is in `retryIn` seconds.
    case lost(reason: String, retryIn: Double)
    /// A probe found it still unreachable.
    case stillLost(retryIn: Double)
    /// It answers again.
    case found
    /// Its queue changed.
    case queue(QueueState)
    /// A named session's end at this destination (manifest sent, or why not).
    case session(name: String, outcome: SessionOutcome)
}

/// The photos one destination still has to take.
public struct QueueState: Sendable, Equatable {
    public var queued: Int
    public var inFlight: Int
    /// Refused for good and kept for `relay retry`.
    public var failed: Int
    /// Held for a decision (the destination's rule is not met yet).
    public var held: Int
    /// When the photo that has waited longest was spooled.
    public var oldestQueuedAt: Date?

    public init(queued: Int, inFlight: Int, failed: Int, held: Int = 0, oldestQueuedAt: Date? = nil) {
        self.queued = queued
        self.inFlight = inFlight
        self.failed = failed
        self.held = held
        self.oldestQueuedAt = oldestQueuedAt
    }
}

/// How a named session ended at one destination.
public enum SessionOutcome: Sendable, Equatable {
    /// Its manifest and `_DONE` marker were delivered.
    case complete(photos: Int)
    /// Photos are missing there (or left in the spool); a later run with the session sends it.
    case incomplete
    /// The manifest could not be sent.
    case manifestFailed(String)
}
