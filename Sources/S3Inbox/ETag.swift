import Foundation

/// An object's ETag as S3 stores compare it: without its quotes. Listings quote it literally
/// (moto), as `&#34;` (SeaweedFS) or `&quot;` (AWS), headers with plain quotes; both stores
/// take `If-Match` quoted or not, so relay keeps the bare value and quotes it when it sends it.
public struct ETag: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The value without quotes.
    public let value: String

    /// Reads an ETag as a header or a listing gives it.
    public init(_ raw: String) {
        var text = raw.trimmingCharacters(in: .whitespaces)
        for reference in ["&#34;", "&quot;"] { text = text.replacingOccurrences(of: reference, with: "\"") }
        if text.hasPrefix("W/") { text.removeFirst(2) }
        if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = String(text.dropFirst().dropLast()) }
        value = text
    }

    /// `"value"`, as an `If-Match` header carries it.
    public var quoted: String { "\"\(value)\"" }

    public var description: String { quoted }

    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}
