import Foundation
import RelayCore

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// One page of a ListObjectsV2 answer (pure), as a desk's S3 inbox reads it to find new photos:
/// each object's key, ETag, time and size, and where the next page starts.
///
/// The stores differ in what is valid XML all the same (docs/S3INBOX.md): SeaweedFS writes the
/// ETag's quotes as `&#34;`, AWS as `&quot;`, moto as bare `"`, and LastModified comes with
/// milliseconds (AWS, moto) or without (SeaweedFS). The ETag is kept without its quotes, the
/// form both stores take back in `If-Match`.
public struct S3ListPage: Sendable, Equatable {
    public struct Object: Sendable, Equatable {
        public var key: String
        /// Without quotes: 32 hex digits (the MD5 of the bytes) for a simple PUT, `…-N` for a
        /// multipart upload.
        public var etag: String
        public var lastModified: Date
        public var size: Int64

        public init(key: String, etag: String, lastModified: Date, size: Int64) {
            self.key = key
            self.etag = etag
            self.lastModified = lastModified
            self.size = size
        }
    }

    public var objects: [Object]
    public var isTruncated: Bool
    /// What the next request's `continuation-token` is, when the listing is truncated.
    public var nextContinuationToken: String?

    public init(objects: [Object], isTruncated: Bool, nextContinuationToken: String?) {
        self.objects = objects
        self.isTruncated = isTruncated
        self.nextContinuationToken = nextContinuationToken
    }

    /// The page in a `ListBucketResult`; nil when `body` is none (an error's XML, a proxy's page)
    /// or an entry lacks its key, ETag, time or size, so that a desk never takes half an entry.
    public static func parse(_ body: [UInt8]) -> S3ListPage? {
        parsing.run("ListBucketResult") {
            let parser = XMLParser(data: Data(body))
            let reader = Reader()
            parser.delegate = reader
            parser.shouldProcessNamespaces = true
            parser.shouldResolveExternalEntities = false
            guard parser.parse(), reader.isListing, !reader.incomplete else { return nil }
            return S3ListPage(objects: reader.objects, isTruncated: reader.isTruncated, nextContinuationToken: reader.nextToken)
        }
    }

    /// The query of a ListObjectsV2 request, as SigV4's canonical request wants it: names sorted,
    /// each name and value percent-encoded but for RFC 3986's unreserved characters. libcurl 7.88
    /// signs the query as it is given, so it must already be canonical.
    public static func query(prefix: String, continuationToken: String? = nil, startAfter: String? = nil, maxKeys: Int? = nil)
        -> String
    {
        var pairs = [("list-type", "2"), ("prefix", prefix)]
        if let continuationToken { pairs.append(("continuation-token", continuationToken)) }
        if let startAfter { pairs.append(("start-after", startAfter)) }
        if let maxKeys { pairs.append(("max-keys", String(maxKeys))) }
        return pairs.sorted { $0.0 < $1.0 }.map { S3Location.encode($0.0) + "=" + S3Location.encode($0.1) }.joined(separator: "&")
    }

    /// FoundationXML on Linux is not safe from several threads at once; the workers take turns.
    private static let parsing = OneAtATime<String>()

    /// `2026-11-28T10:00:00.000Z` (AWS, moto) or `2026-11-28T10:00:00Z` (SeaweedFS); this style
    /// reads both. Not `ISO8601DateFormatter`: made per entry it cost a desk idling over 1,000
    /// objects half a core (ICU builds a formatter each time; BENCHMARKS.md, issue 52).
    static func date(_ text: String) -> Date? {
        try? lastModifiedStyle.parse(text)
    }

    private static let lastModifiedStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    private final class Reader: NSObject, XMLParserDelegate {
        var objects: [Object] = []
        var isTruncated = false
        var nextToken: String?
        var isListing = false
        var incomplete = false
        private var text = ""
        private var depth = 0
        private var entry: [String: String]?

        func parser(
            _ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            depth += 1
            text = ""
            if depth == 1 { isListing = element == "ListBucketResult" }
            if depth == 2 && element == "Contents" { entry = [:] }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            text += string
        }

        func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
            defer { depth -= 1 }
            if depth == 3, entry != nil {
                entry?[element] = text
            } else if depth == 2 {
                switch element {
                case "Contents": finishEntry()
                case "IsTruncated": isTruncated = text.trimmingCharacters(in: .whitespaces) == "true"
                case "NextContinuationToken": nextToken = text.isEmpty ? nil : text
                default: break
                }
            }
        }

        private func finishEntry() {
            defer { entry = nil }
            guard let entry, let key = entry["Key"], let etag = entry["ETag"],
                let modified = entry["LastModified"].flatMap(S3ListPage.date),
                let size = entry["Size"].flatMap({ Int64($0.filter { !$0.isWhitespace }) })
            else {
                incomplete = true
                return
            }
            // Substring work, not Foundation's trimming: it was a tenth of a desk's idle listing.
            let quoteOrSpace: (Character) -> Bool = { $0 == "\"" || $0 == " " }
            var unquoted = etag.drop(while: quoteOrSpace)
            while let last = unquoted.last, quoteOrSpace(last) { unquoted = unquoted.dropLast() }
            objects.append(Object(key: key, etag: String(unquoted), lastModified: modified, size: size))
        }
    }
}
