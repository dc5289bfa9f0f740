import Foundation
import Spool

/// What a photo source reports to the run's display and log.
public enum TetherEvent: Sendable {
    /// A new photo is safely in the spool.
    case spooled(SpoolEntry)
    /// A file that is not a JPEG (RAW, video, sidecar...) was left alone.
    case skipped(fileName: String, reason: String)
    /// The spool is full; the source waits (the photo stays where it is).
    case waitingForRoom
    /// Something went wrong that the source will retry by itself.
    case problem(String)
    /// Something the photographer may want to know (a camera connected, a download resumed).
    case info(String)
    /// What the source is doing right now, for the progress line (not logged).
    case status(String)
    /// The source cannot be used at all (a camera relay does not support) and has stopped; the
    /// run ends with this message.
    case unusable(String)
}
