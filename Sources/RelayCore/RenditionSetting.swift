import Foundation

/// What a config sends: the photo as the camera made it, or a smaller copy made for the gallery.
///
/// In a config file it is `"original"` or `{"maxEdge": 2048, "quality": 85}` (with optional
/// `"stripGPS"` and `"keepMetadata"`); a config without it sends originals, as before.
public enum RenditionSetting: Codable, Sendable, Equatable {
    case original
    case resized(RenditionSpec)

    /// The spec, when the config asks for a smaller copy.
    public var spec: RenditionSpec? {
        if case .resized(let spec) = self { return spec }
        return nil
    }

    public init(from decoder: Decoder) throws {
        if let text = try? decoder.singleValueContainer().decode(String.self) {
            guard text == "original" else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: decoder.codingPath,
                        debugDescription: "rendition '\(text)' is not known: use \"original\" or {\"maxEdge\": 2048, \"quality\": 85}"))
            }
            self = .original
            return
        }
        self = .resized(try RenditionSpec(from: decoder))
    }

    public func encode(to encoder: Encoder) throws {
        switch self {
        case .original:
            var container = encoder.singleValueContainer()
            try container.encode("original")
        case .resized(let spec):
            try spec.encode(to: encoder)
        }
    }
}

/// The gallery copy: at most `maxEdge` pixels on the long edge, encoded at `quality`.
public struct RenditionSpec: Codable, Sendable, Equatable, Hashable {
    /// The long edge in pixels; a photo already this small is sent as it is (never enlarged).
    public var maxEdge: Int
    /// JPEG quality, 1–100.
    public var quality: Int
    /// Removes the GPS IFD from the EXIF (and nothing else), so the gallery never shows where a
    /// photo was taken.
    public var stripGPS: Bool
    /// Keeps EXIF, IPTC and XMP. The ICC profile is kept either way: without it the gallery
    /// would show an Adobe RGB photo's colours wrong.
    public var keepMetadata: Bool

    public static let defaultQuality = 85
    public static let edgeRange = 64...65_500

    public init(maxEdge: Int, quality: Int = defaultQuality, stripGPS: Bool = false, keepMetadata: Bool = true) {
        self.maxEdge = maxEdge
        self.quality = quality
        self.stripGPS = stripGPS
        self.keepMetadata = keepMetadata
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case maxEdge, quality, stripGPS, keepMetadata
    }

    /// A misspelt field ("maxedge") is refused, not ignored, as in the rest of a config.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let known = Set(CodingKeys.allCases.map(\.stringValue))
        if let unknown = try decoder.container(keyedBy: AnyCodingKey.self).allKeys.first(where: { !known.contains($0.stringValue) }) {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath + [unknown],
                    debugDescription:
                        "unknown rendition field '\(unknown.stringValue)' (a rendition has \(CodingKeys.allCases.map(\.stringValue).joined(separator: ", ")))"
                ))
        }
        maxEdge = try c.decode(Int.self, forKey: .maxEdge)
        quality = try c.decodeIfPresent(Int.self, forKey: .quality) ?? Self.defaultQuality
        stripGPS = try c.decodeIfPresent(Bool.self, forKey: .stripGPS) ?? false
        keepMetadata = try c.decodeIfPresent(Bool.self, forKey: .keepMetadata) ?? true
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(maxEdge, forKey: .maxEdge)
        try c.encode(quality, forKey: .quality)
        if stripGPS { try c.encode(stripGPS, forKey: .stripGPS) }
        if !keepMetadata { try c.encode(keepMetadata, forKey: .keepMetadata) }
    }

    /// Names this spec in the spool and in the Idempotency-Key: a rendition made for another
    /// spec is made again, and a gallery can tell each spec's copy from the original.
    public var key: String {
        "\(maxEdge)q\(quality)" + (stripGPS ? "-nogps" : "") + (keepMetadata ? "" : "-nometa")
    }

    /// "2048 px, quality 85, GPS removed".
    public var summary: String {
        "\(maxEdge) px, quality \(quality)" + (stripGPS ? ", GPS removed" : "") + (keepMetadata ? "" : ", metadata removed")
    }

    /// Checks the numbers; the error names the field and the range.
    public func validate() throws(ConfigError) {
        guard Self.edgeRange.contains(maxEdge) else {
            throw .invalidNumber(
                field: "rendition.maxEdge", value: "\(maxEdge)",
                reason: "give the long edge in pixels, \(Self.edgeRange.lowerBound)–\(Self.edgeRange.upperBound) (e.g. 2048)")
        }
        guard (1...100).contains(quality) else {
            throw .invalidNumber(field: "rendition.quality", value: "\(quality)", reason: "JPEG quality is 1–100 (e.g. 85)")
        }
    }
}

/// Any key, to find the ones a decoder does not know.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
