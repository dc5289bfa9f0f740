import Foundation
import RelayCore

/// Where a photo goes in an S3-compatible store, from a config's `s3://BUCKET/PREFIX` URL,
/// `endpoint`, `region` and `addressing` (pure, so keys and URLs are tested without a store).
///
/// The object key is the URL's path as a template when it has placeholders
/// (`s3://b/event/{date}/{name}`), else the prefix followed by the photo's name. It depends only on
/// the photo, so every attempt for one photo writes the same object and a retry never makes a
/// second one.
public struct S3Location: Sendable, Equatable {
    public var bucket: String
    public var keyTemplate: PathTemplate
    /// `scheme://host[:port]` of the store, no trailing slash.
    public var endpoint: String
    public var region: String
    public var addressing: Addressing

    /// How the bucket is named in requests: in the path (`endpoint/BUCKET/KEY`, what SeaweedFS,
    /// MinIO and Ceph expect by default) or in the host name (`BUCKET.endpoint/KEY`, AWS's own style).
    public enum Addressing: String, Sendable, CaseIterable {
        case path, virtual
    }

    public static let defaultRegion = "us-east-1"

    public init(config: RequestConfig) throws(ConfigError) {
        let url = config.url.trimmingCharacters(in: .whitespacesAndNewlines)
        guard url.lowercased().hasPrefix("s3://") else { throw .invalidURL(url, reason: "an S3 destination's URL is s3://BUCKET/PREFIX") }
        let rest = url.dropFirst("s3://".count)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        bucket = String(rest[..<slash])
        var path = String(rest[slash...])
        while path.hasPrefix("/") { path.removeFirst() }
        var template = try PathTemplate(path)
        if !template.hasPlaceholders {
            while path.hasSuffix("/") { path.removeLast() }
            template = try PathTemplate(path.isEmpty ? "{name}" : path + "/{name}")
        }
        keyTemplate = template
        let given = config.option(S3Destination.endpoint)
        region = config.option(S3Destination.region) ?? Self.defaultRegion
        var endpoint = given ?? "https://s3.\(region).amazonaws.com"
        while endpoint.hasSuffix("/") { endpoint.removeLast() }
        self.endpoint = endpoint
        addressing = config.option(S3Destination.addressing).flatMap(Addressing.init(rawValue:)) ?? (given == nil ? .virtual : .path)
    }

    /// The object key of one photo.
    public func key(for values: PathTemplate.Values) -> String {
        keyTemplate.render(values)
    }

    /// The URL a PUT of `key` goes to, each key segment percent-encoded as SigV4 expects.
    public func objectURL(key: String) -> String {
        let encodedKey = key.split(separator: "/", omittingEmptySubsequences: false).map { Self.encode(String($0)) }.joined(separator: "/")
        switch addressing {
        case .path:
            return "\(endpoint)/\(bucket)/\(encodedKey)"
        case .virtual:
            guard let schemeEnd = endpoint.range(of: "://") else { return "\(endpoint)/\(bucket)/\(encodedKey)" }
            return endpoint[..<schemeEnd.upperBound] + "\(bucket)." + endpoint[schemeEnd.upperBound...] + "/\(encodedKey)"
        }
    }

    /// `s3://bucket/key`, how the history and the log name an object.
    public func displayName(key: String) -> String { "s3://\(bucket)/\(key)" }

    /// RFC 3986 unreserved characters stay; every other byte is %XX (upper case), as AWS's
    /// canonical request requires.
    static func encode(_ segment: String) -> String {
        var out = ""
        for byte in segment.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                out.append(Character(Unicode.Scalar(byte)))
            default:
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }
}
