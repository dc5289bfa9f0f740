import Foundation

/// How far one photo got with one destination of a run that delivers to several: kept in the
/// photo's sidecar, so a crash or a restart resumes each destination where it was, and a
/// destination that has the photo never gets it twice.
public struct DestinationProgress: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable {
        case queued, delivered, failed
    }

    public var state: State
    /// The destination's name for people (the config's note, else its URL).
    public var label: String
    public var attempts: Int
    public var lastError: String?
    public var lastStatusCode: Int?

    public init(label: String, state: State = .queued, attempts: Int = 0) {
        self.label = label
        self.state = state
        self.attempts = attempts
    }
}

/// The destinations of a run that delivers to more than one, by id (the request config's id).
/// The primary destination is fed by the spool's own queue (with renditions and uploads during
/// the download); the others take each photo once it is committed, and send the original.
public struct SpoolDestinations: Sendable, Equatable {
    public struct Destination: Sendable, Equatable {
        public var id: String
        public var label: String
        /// Uses the uplink only while no photo waits for a destination of normal priority.
        public var lowPriority: Bool

        public init(id: String, label: String, lowPriority: Bool) {
            self.id = id
            self.label = label
            self.lowPriority = lowPriority
        }
    }

    public var primary: Destination
    public var others: [Destination]

    public init(primary: Destination, others: [Destination]) {
        self.primary = primary
        self.others = others
    }

    var all: [Destination] { [primary] + others }

    /// What a new photo's sidecar starts with: every destination still to go.
    var initialProgress: [String: DestinationProgress] {
        Dictionary(uniqueKeysWithValues: all.map { ($0.id, DestinationProgress(label: $0.label)) })
    }
}

/// How one delivery of a photo to one of its destinations ended.
public enum DestinationResult: Sendable, Equatable {
    case delivered
    case retry(after: TimeInterval, error: String?, statusCode: Int?)
    case failed(error: String, statusCode: Int?)
}
