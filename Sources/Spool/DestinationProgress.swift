import Foundation

/// How far one photo got with one destination of a run that delivers to several: kept in the
/// photo's sidecar, so a crash or a restart resumes each destination where it was, and a
/// destination that has the photo never gets it twice.
public struct DestinationProgress: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable {
        case queued, delivered, failed
        /// A person rejected the photo for this destination (its rule holds photos for a
        /// decision): it is never sent there.
        case rejected
    }

    public var state: State
    /// The destination's name for people (the config's note, else its URL).
    public var label: String
    public var attempts: Int
    public var lastError: String?
    public var lastStatusCode: Int?
    /// When a person rejected it here: an undo is taken for ``PhotoLedger/undoWindow`` after.
    public var decidedAt: Date?

    public init(label: String, state: State = .queued, attempts: Int = 0) {
        self.label = label
        self.state = state
        self.attempts = attempts
    }
}

/// How one delivery of a photo to one of its destinations ended.
public enum DestinationResult: Sendable, Equatable {
    case delivered
    case retry(after: TimeInterval, error: String?, statusCode: Int?)
    case failed(error: String, statusCode: Int?)
}
