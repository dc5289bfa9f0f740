import Foundation
import RunEvents

/// `/status.json`: what the page shows, from `RunState`. Ages are given in seconds as well as
/// times, so that a phone whose clock is off still shows "2 min ago" right.
public enum StatusJSON {
    public static func encode(_ state: RunState, now: Date, thumbnails: Set<String>) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        // Every field is a plain value; encoding cannot fail.
        return Array((try? encoder.encode(document(state, now: now, thumbnails: thumbnails))) ?? Data("{}".utf8))
    }

    public static func document(_ state: RunState, now: Date, thumbnails: Set<String>) -> StatusDocument {
        func age(_ date: Date?) -> Double? { date.map { max(0, now.timeIntervalSince($0)) } }
        return StatusDocument(
            now: now,
            startedAt: state.startedAt,
            runningSeconds: age(state.startedAt),
            stopping: state.stopping,
            rendition: state.rendition,
            totals: .init(
                taken: state.spooled, delivered: state.delivered, failed: state.failed, retries: state.retries,
                skipped: state.skipped, alreadyTaken: state.alreadyTaken, queued: state.queued, uploading: state.uploading),
            uploadBytesPerSecond: state.bytesPerSecond(at: now),
            lastShutterToGallerySeconds: state.lastShutterToGallery,
            cameras: state.sources.map { source in
                .init(
                    label: source.label, model: source.camera?.model, name: source.camera?.name, connected: source.connected,
                    status: source.status, problem: source.problem, batteryPercent: source.batteryPercent,
                    cardFreeBytes: source.card?.freeBytes, cardFreeShots: source.card?.freeShots,
                    lastShot: source.lastShot.map { .init(name: $0.name, at: $0.at, ageSeconds: max(0, now.timeIntervalSince($0.at))) },
                    taken: source.spooled, spoolFull: source.spoolFull)
            },
            destinations: state.destinations.map { destination in
                .init(
                    label: destination.label, target: destination.target, inRun: destination.inRun, reachable: destination.reachable,
                    problem: destination.problem, queued: destination.queue.queued, inFlight: destination.queue.inFlight,
                    failed: destination.queue.failed, held: destination.queue.held, oldestQueuedAt: destination.queue.oldestQueuedAt,
                    oldestWaitSeconds: age(destination.queue.oldestQueuedAt), delivered: destination.delivered,
                    bytesSent: destination.bytesSent)
            },
            recent: state.recent.map { upload in
                .init(
                    id: upload.photo.id, name: upload.photo.name, destination: upload.destination, at: upload.at,
                    ageSeconds: max(0, now.timeIntervalSince(upload.at)), bytes: upload.photo.renditionBytes ?? upload.photo.bytes,
                    seconds: upload.seconds, shutterToGallerySeconds: upload.shutterToGallery,
                    thumbnail: thumbnails.contains(upload.photo.id) ? "/thumb/\(upload.photo.id).jpg" : nil,
                    photographer: upload.photo.photographer)
            },
            capture: state.capture.map { capture in
                .init(
                    shot: capture.shot, planned: capture.planned, captured: capture.captured, failed: capture.failed,
                    missed: capture.missed, uploaded: capture.uploaded, nextShotAt: capture.nextShotAt,
                    nextShotInSeconds: capture.nextShotAt.map { $0.timeIntervalSince(now) },
                    waitingForPhotos: capture.waitingForPhotos, uploadsPending: capture.uploadsPending, paused: capture.paused,
                    text: capture.text(at: now))
            },
            spool: state.spool.map { usage in
                .init(
                    photos: usage.photos, maxPhotos: usage.maxPhotos, heldPhotos: usage.heldPhotos, bytes: usage.bytes,
                    maxBytes: usage.maxBytes, heldBytes: usage.heldBytes, heldShare: usage.heldShare,
                    heldWarning: usage.heldShare >= SpoolUsage.heldWarningShare)
            })
    }
}

/// The status page's data. Field names are the JSON's; a field that is unknown is absent.
public struct StatusDocument: Encodable, Sendable, Equatable {
    public var now: Date
    public var startedAt: Date?
    public var runningSeconds: Double?
    public var stopping: Bool
    public var rendition: String?
    public var totals: Totals
    public var uploadBytesPerSecond: Double
    public var lastShutterToGallerySeconds: Double?
    public var cameras: [Camera]
    public var destinations: [Destination]
    /// The latest deliveries, newest first.
    public var recent: [Upload]
    /// Set during `relay capture`.
    public var capture: Capture?
    /// How full the spool is, and what photos held for review take of it.
    public var spool: Spool?

    public struct Spool: Encodable, Sendable, Equatable {
        public var photos, maxPhotos, heldPhotos: Int
        public var bytes, maxBytes, heldBytes: Int64
        /// The held photos' share of the tighter limit, 0 to 1.
        public var heldShare: Double
        /// Whether held photos come to fill the spool (new photos would then wait at the camera).
        public var heldWarning: Bool
    }

    /// The run as a whole: `delivered` and `failed` count photos by the run's rule (at every
    /// destination of normal priority, ``RunState/delivered``), `queued` and `uploading` the
    /// uploads at every destination. Each destination's own counts are in `destinations`.
    public struct Totals: Encodable, Sendable, Equatable {
        public var taken, delivered, failed, retries, skipped: Int
        /// Photos declined as taken before (a wrong match would show here first).
        public var alreadyTaken: Int
        public var queued, uploading: Int
    }

    public struct Camera: Encodable, Sendable, Equatable {
        public var label: String
        public var model, name: String?
        public var connected: Bool
        public var status, problem: String?
        public var batteryPercent: Int?
        public var cardFreeBytes: Int64?
        public var cardFreeShots: Int?
        public var lastShot: Shot?
        public var taken: Int
        public var spoolFull: Bool
    }

    public struct Shot: Encodable, Sendable, Equatable {
        public var name: String
        public var at: Date
        public var ageSeconds: Double
    }

    public struct Destination: Encodable, Sendable, Equatable {
        public var label, target: String
        /// False for a destination this run does not deliver to, that spooled photos wait for.
        public var inRun: Bool
        public var reachable: Bool
        public var problem: String?
        public var queued, inFlight, failed: Int
        /// Photos held for review (its rule sends approved or selected photos only).
        public var held: Int
        public var oldestQueuedAt: Date?
        public var oldestWaitSeconds: Double?
        public var delivered: Int
        public var bytesSent: Int64
    }

    public struct Upload: Encodable, Sendable, Equatable {
        public var id, name, destination: String
        public var at: Date
        public var ageSeconds: Double
        public var bytes: Int64
        public var seconds, shutterToGallerySeconds: Double
        /// Its thumbnail's path, once one is made.
        public var thumbnail: String?
        /// Who shot it, when the run knows (a receiver's login).
        public var photographer: String?
    }

    public struct Capture: Encodable, Sendable, Equatable {
        /// The last shot that fell due.
        public var shot: Int
        public var planned: Int?
        public var captured, failed, missed, uploaded: Int
        public var nextShotAt: Date?
        public var nextShotInSeconds: Double?
        public var waitingForPhotos, uploadsPending: Int
        public var paused: Bool
        /// The progress line's wording.
        public var text: String
    }
}
