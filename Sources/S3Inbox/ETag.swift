import Foundation

/// An object's ETag as S3 stores compare it: without its quotes. Listings quote it literally
/// (moto), as `&#34;` (SeaweedFS) or `&quot;` (AWS), headers with plain quotes; both stores
/// take `If-Match` quoted or not, so relay keeps the bare value and quotes it when it sends it.
public struct ETag: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The value without quotes.
    public let value: String

    /// Reads an ETag as a header or a listing gives it.
    public init(_ raw: String) {
        // Substring work, not Foundation's trimming: a desk reads thousands of these each listing.
        var text = raw
        if text.contains("&") {
            for reference in ["&#34;", "&quot;"] { text = text.replacingOccurrences(of: reference, with: "\"") }
        }
        var bare = text.drop(while: \.isWhitespace)
        while bare.last?.isWhitespace == true { bare = bare.dropLast() }
        if bare.hasPrefix("W/") { bare = bare.dropFirst(2) }
        if bare.count >= 2, bare.first == "\"", bare.last == "\"" { bare = bare.dropFirst().dropLast() }
        value = String(bare)
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
