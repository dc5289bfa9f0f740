import Foundation

/// What one destination of a run still has to take, for the run's display (the status page,
/// the progress line, `/metrics`).
public struct SpoolQueue: Sendable, Equatable {
    public var queued = 0
    public var inFlight = 0
    public var failed = 0
    /// Photos held for a decision (the destination's rule is not met yet).
    public var held = 0
    /// When the photo that has waited longest was spooled.
    public var oldestQueuedAt: Date?
}
