import Foundation

/// What a desk writes at `PREFIX.relay/claims/<rest>.json` to take the photo at `PREFIX<rest>`:
/// which desk, which bytes (the object's ETag: new bytes under the same key are a new photo),
/// and how far it got. Written only with a conditional single PUT, so two desks never both
/// hold it. Its times are for people reading it (`started` the store's `Date` when first
/// claimed, `renewed` the desk's clock at its last write): staleness is judged only by the
/// store's own `Last-Modified` against its `Date`, never by a desk's clock.
public struct InboxClaim: Codable, Sendable, Equatable {
    /// `taking` (claimed: downloading, checking, waiting for room; renewed meanwhile), `done` (in
    /// the durable spool of the desk that took it, which delivers it: never taken again).
    /// `spooled` (in a desk's spool, never taken over) is read but not written by this relay.
    public enum State: String, Codable, Sendable, CaseIterable {
        case taking, spooled, done
    }

    /// The inbox object the claim is about.
    public struct Object: Codable, Sendable, Equatable {
        public var key: String
        public var etag: ETag

        public init(key: String, etag: ETag) {
            self.key = key
            self.etag = etag
        }
    }

    /// The desk's id, made once and kept in its RELAY_HOME, so a restarted desk knows its claims.
    public var desk: String
    public var object: Object
    public var state: State
    /// When this desk first claimed these bytes (the store's time).
    public var started: Date
    /// When this desk last wrote the claim (its own clock); the store's `Last-Modified` is what
    /// staleness is judged by, this is for people reading the claim.
    public var renewed: Date

    public init(desk: String, object: Object, state: State, started: Date, renewed: Date) {
        self.desk = desk
        self.object = object
        self.state = state
        self.started = started
        self.renewed = renewed
    }

    /// The folder under the inbox's prefix where relay keeps its own objects; never photos.
    public static let relayFolder = ".relay/"

    /// The claim's key for the photo `objectKey` in the inbox at `prefix` (`""`, or ending in
    /// `/`); nil for a key outside the prefix or one of relay's own.
    public static func key(for objectKey: String, prefix: String) -> String? {
        guard objectKey.hasPrefix(prefix) else { return nil }
        let rest = objectKey.dropFirst(prefix.count)
        guard !rest.isEmpty, !rest.hasPrefix(relayFolder) else { return nil }
        return prefix + relayFolder + "claims/" + rest + ".json"
    }

    /// The claim as it is stored: JSON with its keys sorted and dates in ISO 8601.
    public func encoded() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        // Strings, an enum and dates: nothing here can fail to encode.
        return (try? [UInt8](encoder.encode(self))) ?? []
    }

    /// A claim read back; nil for a body that is not one (another relay's format, a person's edit).
    public init?(decoding body: [UInt8]) {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let claim = try? decoder.decode(Self.self, from: Data(body)) else { return nil }
        self = claim
    }
}
