import Foundation

/// What the spool holds at one moment, for `relay status` and the progress line.
public struct SpoolSnapshot: Codable, Sendable, Equatable {
    public var queued: [SpoolEntry]
    public var inFlight: [SpoolEntry]
    public var failed: [SpoolEntry]
    /// Sidecars that could not be read.
    public var problems: [String]
    /// Every destination that queued or in-flight photos still wait for, most photos first.
    public var waiting: [WaitingDestination]
    /// Photos held for a decision, per destination label (`relay review`); nil when not counted.
    public var held: [String: Int]?

    init(queued: [SpoolEntry], inFlight: [SpoolEntry], failed: [SpoolEntry], problems: [String]) {
        self.queued = queued
        self.inFlight = inFlight
        self.failed = failed
        self.problems = problems
        waiting = PhotoDestinations.waiting(
            (queued + inFlight).compactMap { entry in entry.destinations.map { (entry.uploadName, $0) } },
            outside: [])
    }
}
