import Foundation
import RelayCore

/// What the run's main thread waits for, as one value its box wakes it for: the spool changed,
/// a stop was asked for (or a source failed), a second stop cuts the grace short, the workers
/// ended.
struct RunWake: Sendable {
    /// Counts the spool's changes: the queues and usage are published again when it moved.
    var spoolChanges = 0
    var stopping = false
    var aborted = false
    var workersLeft = 0

    /// The shortest gap between two looks at the queues: a burst changes the spool hundreds of
    /// times a second, and each look walks every photo.
    static let publishGap: TimeInterval = 0.2

    /// Waits for the next turn of a loop that last looked at the spool's changes `seen` (nil: it
    /// does not look) at `lastLook`: ready once the spool changed and `publishGap` passed since,
    /// `until` came, or `done` says so; returns the wake then.
    static func turn(
        in box: LockedBox<RunWake>, seen: Int?, lastLook: Date = .distantPast, until: Date?, done: (RunWake) -> Bool
    ) -> RunWake {
        box.wait { wake in
            if done(wake) { return .ready(wake) }
            let now = Date()
            if let until, now >= until { return .ready(wake) }
            var next = until
            if let seen, wake.spoolChanges != seen {
                let due = lastLook.addingTimeInterval(publishGap)
                if now >= due { return .ready(wake) }
                next = min(next ?? due, due)
            }
            return .until(next)
        }
    }
}
