import Foundation

/// The run's own life.
public enum RunPhaseEvent: Sendable, Equatable {
    /// The run is about to take photos: its sources, destinations and what the spool held.
    case started(RunDescription)
    /// Something about the run itself (the spool's repairs at start, a history file that could
    /// not be written).
    case notice(String, Severity)
    /// No new photos are taken; uploads in flight get `graceSeconds` to finish.
    case stopping(graceSeconds: Double)
    /// The run is over.
    case stopped(RunTotals)
    /// This observer fell behind and lost its `count` oldest events (only the observer that lost
    /// them is handed this).
    case dropped(count: Int)
    /// How full the spool is, and how much of it photos held for review take (when it changed).
    case spool(SpoolUsage)
}

/// How full the spool is against its limits, and the share photos held for review take: held
/// photos stay until someone decides, so they can fill it and stop new photos coming in.
public struct SpoolUsage: Sendable, Equatable {
    public var photos: Int
    public var bytes: Int64
    public var heldPhotos: Int
    public var heldBytes: Int64
    public var maxPhotos: Int
    public var maxBytes: Int64

    public init(photos: Int, bytes: Int64, heldPhotos: Int, heldBytes: Int64, maxPhotos: Int, maxBytes: Int64) {
        self.photos = photos
        self.bytes = bytes
        self.heldPhotos = heldPhotos
        self.heldBytes = heldBytes
        self.maxPhotos = maxPhotos
        self.maxBytes = maxBytes
    }

    /// The larger of the held photos' shares of the photo and byte limits (0 to 1 and over).
    public var heldShare: Double {
        max(
            maxPhotos > 0 ? Double(heldPhotos) / Double(maxPhotos) : 0,
            maxBytes > 0 ? Double(heldBytes) / Double(maxBytes) : 0)
    }

    /// From this share on, relay warns that held photos are filling the spool.
    public static let heldWarningShare = 0.8
}

/// What a run is made of, as it starts.
public struct RunDescription: Sendable, Equatable {
    /// Each source's label, in the order given.
    public var sources: [String]
    /// Each destination, those of normal priority first; the order gives none a role.
    public var destinations: [DestinationDescription]
    public var workers: Int
    /// Photos already in the spool from an earlier run.
    public var resumed: Int
    /// The rendition sent instead of the original (e.g. "2048 px, quality 85"), if any.
    public var rendition: String?
    /// Destinations this run does not deliver to that photos in the spool still wait for
    /// (an earlier run took them for those too).
    public var waitingElsewhere: [WaitingElsewhere]

    public init(
        sources: [String], destinations: [DestinationDescription], workers: Int, resumed: Int, rendition: String? = nil,
        waitingElsewhere: [WaitingElsewhere] = []
    ) {
        self.sources = sources
        self.destinations = destinations
        self.workers = workers
        self.resumed = resumed
        self.rendition = rendition
        self.waitingElsewhere = waitingElsewhere
    }
}

extension RunDescription {
    /// The destinations a photo must reach to count as delivered for the run as a whole (the
    /// run's "done", a capture's "uploaded"): every one of normal priority, whatever the order
    /// they were named in. A low-priority backup catches up later and holds nothing up, unless
    /// every destination is low priority: then each counts.
    public var countedDestinations: Set<String> {
        let normal = destinations.filter { !$0.lowPriority }
        return Set((normal.isEmpty ? destinations : normal).map(\.label))
    }
}

/// A destination outside the run that photos in the spool wait for, and how many.
public struct WaitingElsewhere: Sendable, Equatable {
    public var label: String
    public var photos: Int

    public init(label: String, photos: Int) {
        self.label = label
        self.photos = photos
    }
}

/// One destination of a run.
public struct DestinationDescription: Sendable, Equatable {
    /// The config's label, which names the destination in every other event.
    public var label: String
    /// Where photos go (`POST https://…`, `s3://bucket/…`, `sftp://…`).
    public var target: String
    public var lowPriority: Bool

    public init(label: String, target: String, lowPriority: Bool = false) {
        self.label = label
        self.target = target
        self.lowPriority = lowPriority
    }
}

/// A run's outcome.
public struct RunTotals: Sendable, Equatable {
    /// Photos delivered to, and refused for good by, the run's counted destinations
    /// (``RunState/delivered``).
    public var delivered: Int
    public var failed: Int
    /// What each destination of the run took and refused, in the run's order.
    public var destinations: [DestinationTotals]
    /// Photos queued or in flight when the run ended; the next run sends them.
    public var left: Int
    /// Photos in `spool/failed` (`relay status`, `relay retry`).
    public var failedInSpool: Int
    /// Of those left, how many are held for a decision, per destination label (`relay review`).
    public var held: [String: Int]

    public init(
        delivered: Int, failed: Int, destinations: [DestinationTotals] = [], left: Int, failedInSpool: Int, held: [String: Int] = [:]
    ) {
        self.delivered = delivered
        self.failed = failed
        self.destinations = destinations
        self.left = left
        self.failedInSpool = failedInSpool
        self.held = held
    }
}

extension RunTotals {
    /// The totals of the run `state` pictures, with what the spool still holds.
    public init(_ state: RunState, left: Int, failedInSpool: Int, held: [String: Int]) {
        self.init(
            delivered: state.delivered, failed: state.failed,
            destinations: state.destinations.filter(\.inRun).map {
                DestinationTotals(label: $0.label, delivered: $0.delivered, failed: $0.failed)
            },
            left: left, failedInSpool: failedInSpool, held: held)
    }
}

/// One destination's deliveries and refusals in a run.
public struct DestinationTotals: Sendable, Equatable {
    public var label: String
    public var delivered: Int
    public var failed: Int

    public init(label: String, delivered: Int, failed: Int) {
        self.label = label
        self.delivered = delivered
        self.failed = failed
    }
}
