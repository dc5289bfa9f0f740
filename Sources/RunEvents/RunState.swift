import Foundation

/// What a run looks like now, folded from its events: the progress line, the status page and
/// `/metrics` all read this one picture.
public struct RunState: Sendable, Equatable {
    public var startedAt: Date?
    public var stopping = false
    public var workers = 0
    public var rendition: String?
    public var sources: [SourceState] = []
    /// In the run's order (normal priority first), then those it does not deliver to.
    public var destinations: [DestinationState] = []
    /// Photos taken into the spool this run.
    public var spooled = 0
    public var skipped = 0
    /// Photos declined as taken before (``AlreadyTaken``).
    public var alreadyTaken = 0
    /// Photos delivered, and refused for good, for the run as a whole: a photo is delivered once
    /// every counted destination has it (``RunDescription/countedDestinations``: those of normal
    /// priority, so a backup catching up holds nothing up), and failed once one of them refused
    /// it for good. A photographer asks "are they in the gallery?", not "in the first config
    /// named?"; each destination's own counts are in `destinations`.
    public var delivered = 0
    public var failed = 0
    public var retries = 0
    /// From the shutter to the last photo delivered for the run (its last counted destination's answer).
    public var lastShutterToGallery: Double?
    /// The latest deliveries, newest first (at most `recentLimit`).
    public var recent: [RecentUpload] = []
    public var capture: CaptureProgress?
    /// How full the spool is, and what photos held for review take of it.
    public var spool: SpoolUsage?
    /// Attempt durations of delivered uploads, and shutter-to-gallery times, at every destination.
    public var uploadSeconds = Histogram.seconds
    public var shutterToGallery = Histogram.seconds
    /// Bytes sent by settled attempts within the last `rateWindow` seconds.
    private var recentBytes: [SentBytes] = []
    /// The run's ``RunDescription/countedDestinations``.
    private var counted: Set<String> = []
    /// The counted destinations each photo not yet delivered for the run has reached.
    private var reached: [String: Set<String>] = [:]
    /// Photos a counted destination refused for good (each fails the run once).
    private var refused: Set<String> = []

    public static let recentLimit = 12
    public static let rateWindow = 10.0

    public init() {}

    /// Bytes per second sent over the last `rateWindow` seconds before `now`.
    public func bytesPerSecond(at now: Date) -> Double {
        let sent = recentBytes.filter { now.timeIntervalSince($0.at) <= Self.rateWindow }.reduce(Int64(0)) { $0 + $1.bytes }
        return Double(sent) / Self.rateWindow
    }

    /// Photos in flight to any destination.
    public var uploading: Int { destinations.reduce(0) { $0 + $1.uploading } }

    /// Uploads waiting at every destination the run delivers to (a photo for two waits twice), as
    /// `uploading` counts the attempts under way.
    public var queued: Int { destinations.filter(\.inRun).reduce(0) { $0 + $1.queue.queued } }

    public var spoolFull: Bool { sources.contains { $0.spoolFull } }

    /// Folds one event in.
    public mutating func apply(_ timed: TimedEvent) {
        let now = timed.at
        switch timed.event {
        case .run(let event):
            switch event {
            case .started(let run):
                startedAt = now
                workers = run.workers
                rendition = run.rendition
                counted = run.countedDestinations
                for label in run.sources { _ = sourceIndex(label) }
                for destination in run.destinations {
                    let index = destinationIndex(destination.label)
                    destinations[index].target = destination.target
                    destinations[index].lowPriority = destination.lowPriority
                }
                let delivering = Set(run.destinations.map(\.label))
                for waiting in run.waitingElsewhere where !delivering.contains(waiting.label) {
                    let index = destinationIndex(waiting.label)
                    destinations[index].inRun = false
                    destinations[index].queue.queued = waiting.photos
                }
            case .stopping: stopping = true
            case .spool(let usage): spool = usage
            case .notice, .stopped, .dropped: break
            }
        case .source(let label, let event):
            apply(event, to: sourceIndex(label), at: now)
        case .upload(let event):
            apply(event, at: now)
        case .destination(let label, let event):
            let index = destinationIndex(label)
            switch event {
            case .lost(let reason, _):
                destinations[index].reachable = false
                destinations[index].problem = reason
            case .stillLost: destinations[index].reachable = false
            case .found:
                destinations[index].reachable = true
                destinations[index].problem = nil
            case .queue(let queue): destinations[index].queue = queue
            case .session: break
            }
        case .capture(let event):
            if case .progress(let progress) = event { capture = progress }
        case .review:
            break
        }
        recentBytes.removeAll { now.timeIntervalSince($0.at) > Self.rateWindow }
    }

    private mutating func apply(_ event: SourceEvent, to index: Int, at now: Date) {
        switch event {
        case .connecting(let detail):
            sources[index].status = detail
            sources[index].connected = false
        case .connected(let camera):
            sources[index].camera = camera
            sources[index].connected = true
            sources[index].status = "\(camera.model) connected"
            sources[index].problem = nil
        case .lost(let reason, let summary, let retryIn, let attempt):
            sources[index].connected = false
            sources[index].problem = reason
            sources[index].status = String(format: "reconnecting in %.0fs (attempt %d): %@", retryIn.rounded(.up), attempt, summary)
        case .battery(let percent): sources[index].batteryPercent = percent
        case .card(let space): sources[index].card = space
        case .batteryLow, .cardLow, .announced, .unusable: break
        case .spooled(let photo):
            spooled += 1
            sources[index].spooled += 1
            sources[index].lastShot = LastShot(name: photo.cameraFileName, at: photo.capturedAt)
            sources[index].spoolFull = false
        case .skipped:
            skipped += 1
        case .alreadyTaken:
            alreadyTaken += 1
            sources[index].alreadyTaken += 1
        case .spoolFull:
            sources[index].spoolFull = true
        case .notice(let message, let severity):
            if severity == .warning { sources[index].problem = message }
        }
    }

    private mutating func apply(_ event: UploadEvent, at now: Date) {
        switch event {
        case .started(_, let label, _, _):
            destinations[destinationIndex(label)].uploading += 1
        case .settled(let photo, let label, let outcome):
            let index = destinationIndex(label)
            destinations[index].uploading = max(0, destinations[index].uploading - 1)
            switch outcome {
            case .delivered(let delivery):
                destinations[index].delivered += 1
                destinations[index].bytesSent += delivery.bytesSent
                destinations[index].reachable = true
                recentBytes.append(SentBytes(at: now, bytes: delivery.bytesSent))
                uploadSeconds.observe(delivery.seconds)
                shutterToGallery.observe(delivery.shutterToGallery)
                if counted.contains(label) {
                    reached[photo.id, default: []].insert(label)
                    if counted.isSubset(of: reached[photo.id] ?? []) {
                        reached[photo.id] = nil
                        delivered += 1
                        lastShutterToGallery = delivery.shutterToGallery
                    }
                }
                recent.insert(
                    RecentUpload(
                        photo: photo, destination: label, at: now, seconds: delivery.seconds,
                        shutterToGallery: delivery.shutterToGallery), at: 0)
                if recent.count > Self.recentLimit { recent.removeLast(recent.count - Self.recentLimit) }
            case .retrying:
                retries += 1
                destinations[index].retries += 1
            case .interrupted:
                break
            case .failed:
                destinations[index].failed += 1
                if counted.contains(label), refused.insert(photo.id).inserted { failed += 1 }
            }
        case .progressed, .renditionMade, .sentAsOriginal, .notice:
            break
        }
    }

    private mutating func sourceIndex(_ label: String) -> Int {
        if let index = sources.firstIndex(where: { $0.label == label }) { return index }
        sources.append(SourceState(label: label))
        return sources.count - 1
    }

    private mutating func destinationIndex(_ label: String) -> Int {
        if let index = destinations.firstIndex(where: { $0.label == label }) { return index }
        destinations.append(DestinationState(label: label))
        return destinations.count - 1
    }
}

/// One source as the run sees it now.
public struct SourceState: Sendable, Equatable {
    public var label: String
    /// The camera behind it, once one has connected (hot folders and the FTP receiver have none).
    public var camera: CameraDescription?
    public var connected = false
    /// What it is doing ("Canon EOS R50 connected", "reconnecting in 4s…").
    public var status: String?
    public var batteryPercent: Int?
    public var card: CardSpace?
    public var lastShot: LastShot?
    public var spooled = 0
    /// Photos it declined as taken before.
    public var alreadyTaken = 0
    public var spoolFull = false
    /// The latest thing that went wrong, until it connects again.
    public var problem: String?

    public init(label: String) {
        self.label = label
    }
}

/// A source's latest photo.
public struct LastShot: Sendable, Equatable {
    public var name: String
    public var at: Date
}

/// One destination as the run sees it now.
public struct DestinationState: Sendable, Equatable {
    public var label: String
    public var target = ""
    public var lowPriority = false
    /// Whether this run delivers to it. Photos in the spool can wait for a destination it does
    /// not (an earlier run took them for it); their count is its `queue.queued`.
    public var inRun = true
    public var reachable = true
    /// Why it is unreachable.
    public var problem: String?
    public var queue = QueueState(queued: 0, inFlight: 0, failed: 0)
    /// Attempts under way now.
    public var uploading = 0
    public var delivered = 0
    public var failed = 0
    public var retries = 0
    public var bytesSent: Int64 = 0

    public init(label: String) {
        self.label = label
    }
}

/// A delivery, for the status page's list of the last uploads.
public struct RecentUpload: Sendable, Equatable {
    public var photo: PhotoRef
    public var destination: String
    public var at: Date
    public var seconds: Double
    public var shutterToGallery: Double
}

struct SentBytes: Sendable, Equatable {
    var at: Date
    var bytes: Int64
}
