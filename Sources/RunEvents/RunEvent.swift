import Foundation

/// Everything a run tells the world, as data: the pipeline publishes these and never formats a
/// sentence; the console, the JSON stream, the status page, the metrics and the capture
/// controller each read them (see `RunEventBus`).
///
/// Grouped by what they are about, so that a new source or destination adds cases in one place.
public enum RunEvent: Sendable, Equatable {
    /// The run as a whole: started, stopping, stopped, and its rare notices.
    case run(RunPhaseEvent)
    /// A photo source (a camera, a hot folder, the FTP receiver), named by its label.
    case source(String, SourceEvent)
    /// A photo on its way to one destination.
    case upload(UploadEvent)
    /// A destination's reachability and queue, named by its config's label.
    case destination(String, DestinationEvent)
    /// A timed capture (`relay capture`).
    case capture(CaptureEvent)
    /// Photos held for a decision, and the decisions on them.
    case review(ReviewEvent)
}

/// An event with the moment it happened.
public struct TimedEvent: Sendable, Equatable {
    public var at: Date
    public var event: RunEvent

    public init(at: Date = Date(), _ event: RunEvent) {
        self.at = at
        self.event = event
    }
}

/// How much a photographer needs to see a notice.
public enum Severity: String, Sendable, Equatable {
    /// Worth knowing (a download resumed, a folder is polled).
    case info
    /// Something is wrong and relay works around it or retries by itself.
    case warning
}
