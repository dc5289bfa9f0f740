import Foundation

/// What a session's consumer reads before it trusts the set: the session, and for each photo
/// its name, size, SHA-256, capture time and where this destination received it. Delivered as
/// `manifest.json` just before the `_DONE` marker (the manifest-then-done pattern), so a consumer
/// that sees the marker can check every file against the list. Pure: built from the ledger.
public struct SessionManifest: Codable, Sendable, Equatable {
    /// One photo as one destination received it.
    public struct Photo: Codable, Sendable, Equatable {
        public var name: String
        public var size: Int64
        public var sha256: String
        public var capturedAt: Date
        /// The object key, remote path or URL it was delivered under.
        public var deliveredAs: String
        /// A bracketing frame's set, frame and speed (absent for other photos).
        public var bracket: BracketTag?
    }

    public var session: String
    /// The destination (config label) this manifest describes.
    public var destination: String
    public var photos: [Photo]

    /// The manifest of `record` for one destination, in capture order; nil while a photo of the
    /// session has not reached it yet (the set is not complete there).
    public static func build(_ record: SessionRecord, destinationID: String, label: String) -> SessionManifest? {
        var photos: [Photo] = []
        for photo in record.photos.values {
            guard let copy = photo.deliveries[destinationID] else { return nil }
            photos.append(
                Photo(
                    name: photo.name, size: copy.size, sha256: copy.sha256, capturedAt: photo.capturedAt,
                    deliveredAs: copy.location, bracket: photo.bracket))
        }
        photos.sort { ($0.capturedAt, $0.name) < ($1.capturedAt, $1.name) }
        return SessionManifest(session: record.session, destination: label, photos: photos)
    }

    /// The manifest as sent: relay's JSON dialect (sorted keys, ISO 8601 times).
    public func encoded() throws -> Data {
        try JSONCoding.encoder.encode(self) + Data("\n".utf8)
    }
}

/// The durable state of one named session (`relay run --session NAME`): every photo delivered
/// in it and where, and which destinations have had the set announced. Kept under RELAY_HOME so
/// that a run that crashes before the marker leaves the next run with the same session all it
/// needs to deliver the manifest.
public struct SessionRecord: Codable, Sendable, Equatable {
    /// One file as one destination received it.
    public struct Delivery: Codable, Sendable, Equatable {
        public var location: String
        public var size: Int64
        public var sha256: String

        public init(location: String, size: Int64, sha256: String) {
            self.location = location
            self.size = size
            self.sha256 = sha256
        }
    }

    /// One photo of the session.
    public struct Photo: Codable, Sendable, Equatable {
        public var name: String
        public var capturedAt: Date
        /// By destination (config id).
        public var deliveries: [String: Delivery]
        /// A bracketing frame's set, frame and speed.
        public var bracket: BracketTag?
    }

    public var session: String
    /// By the photo's delivery key (stable across retries and restarts).
    public var photos: [String: Photo]
    /// By destination (config id): the photo keys its last marker covered, so the marker is sent
    /// once per complete set and again only if the set grew.
    public var announced: [String: [String]]

    public init(session: String) {
        self.session = session
        photos = [:]
        announced = [:]
    }

    /// Records that `destinationID` received the photo `key`.
    public mutating func record(
        key: String, name: String, capturedAt: Date, bracket: BracketTag? = nil, destinationID: String, _ delivery: Delivery
    ) {
        var photo = photos[key] ?? Photo(name: name, capturedAt: capturedAt, deliveries: [:], bracket: bracket)
        photo.deliveries[destinationID] = delivery
        photos[key] = photo
    }

    /// Whether the marker for the current set still has to be delivered to `destinationID`.
    public func needsAnnouncement(to destinationID: String) -> Bool {
        !photos.isEmpty && announced[destinationID] != photos.keys.sorted()
    }

    /// Records that the marker for the current set reached `destinationID`.
    public mutating func markAnnounced(to destinationID: String) {
        announced[destinationID] = photos.keys.sorted()
    }

    /// Whether `name` can name a session: it becomes a file name and an object-key folder.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 100 && name != "." && name != ".."
            && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }
    }
}
