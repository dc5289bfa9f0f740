import Foundation
import RelayCore

/// An S3-compatible bucket as relay talks to it: the one place that signs its requests (the
/// config's endpoint, region and addressing, the keys from the environment). The S3 destination
/// PUTs photos through it; a desk's S3 inbox (issue 52) lists and downloads through it.
///
/// Owned by one thread, as its `HTTPUploadClient` is.
public final class S3Bucket {
    /// The photographer's name as object metadata: set by a field relay's S3 destination, read
    /// by the desk that takes the photo from its inbox.
    public static let photographerHeader = "x-amz-meta-photographer"

    public let config: RequestConfig
    public let location: S3Location
    let signing: AWSSigning
    /// The config's own headers and, with temporary credentials, `x-amz-security-token`.
    let headers: [HTTPHeader]
    let client: HTTPUploadClient

    public init(config: RequestConfig, environment: [String: String], cancellation: UploadCancellation) throws(DestinationError) {
        self.config = config
        do {
            location = try S3Location(config: config)
            signing = try S3Destination.signing(config: config, region: location.region, environment: environment)
            headers =
                try RequestBuilder.headers(for: config, environment: environment)
                + (signing.sessionToken.map { [HTTPHeader(name: "x-amz-security-token", value: $0)] } ?? [])
        } catch {
            throw .config(error)
        }
        do { client = try HTTPUploadClient(cancellation: cancellation) } catch { throw .transport(error) }
    }

    /// A signed request for `key` (the bucket itself for ""), with `query` already canonical.
    public func request(
        _ method: String, key: String, query: String = "", headers extra: [HTTPHeader] = [], body: UploadBody = .raw,
        filePath: String = "", contentType: String = "application/octet-stream"
    ) -> UploadRequest {
        var signed = headers + extra
        if case .inline(let bytes) = body {
            // libcurl 7.88 signs a body from memory with its SHA-256 but does not send the header
            // that names it; SeaweedFS then checks the signature against another payload hash and
            // answers SignatureDoesNotMatch. Given, the header is both signed and sent.
            var digest = SHA256Digest()
            digest.update(bytes)
            signed.append(HTTPHeader(name: "x-amz-content-sha256", value: digest.hex()))
        }
        return UploadRequest(
            method: method, url: location.objectURL(key: key) + (query.isEmpty ? "" : "?" + query), headers: signed, body: body,
            filePath: filePath, idempotencyKey: "", timeoutSeconds: config.timeoutSeconds, contentType: contentType, signing: signing)
    }

    /// One request on this bucket's connection (blocking the calling thread).
    public func perform(_ request: UploadRequest) -> Result<UploadResponse, UploadTransportError> {
        client.perform(request)
    }

    /// S3 user metadata travels as ASCII header values, so a name's UTF-8 is percent-encoded
    /// (`Ana López` → `Ana%20L%C3%B3pez`): the stores keep that as it is. Raw non-ASCII is
    /// refused by some clients and stores, and AWS is reported to hand it back as an RFC 2047
    /// encoded-word (`=?UTF-8?B?…?=`), which a desk would then have to decode.
    public static func metadataValue(_ text: String) -> String { S3Location.encode(text) }

    /// What `metadataValue` made, read back; a value that is no percent-encoding is taken as it is.
    public static func metadataText(_ value: String) -> String { value.removingPercentEncoding ?? value }

    /// A ListObjectsV2 answer holds about 300 bytes an entry; 1,000 long keys fit with room.
    static let listingLimit = 8 << 20

    /// One page of the keys under `prefix`, from `continuationToken` on (the store's default
    /// page is 1,000 keys; `maxKeys` asks for fewer).
    public func list(prefix: String, continuationToken: String? = nil, maxKeys: Int? = nil) throws(S3BucketError) -> S3ListPage {
        var request = request(
            "GET", key: "", query: S3ListPage.query(prefix: prefix, continuationToken: continuationToken, maxKeys: maxKeys))
        request.keptAnswer = Self.listingLimit
        let response = try answered(client.perform(request), asking: "list \(location.displayName(key: prefix))")
        guard response.body.count < Self.listingLimit, let page = S3ListPage.parse(response.body) else {
            throw .unreadableListing(bucket: location.bucket, answer: response.bodySummary)
        }
        if page.isTruncated && page.nextContinuationToken == nil {
            throw .unreadableListing(bucket: location.bucket, answer: "a truncated listing without NextContinuationToken")
        }
        return page
    }

    /// Every object under `prefix`, page after page.
    public func listAll(prefix: String, maxKeys: Int? = nil) throws(S3BucketError) -> [S3ListPage.Object] {
        var objects: [S3ListPage.Object] = []
        var token: String?
        repeat {
            let page = try list(prefix: prefix, continuationToken: token, maxKeys: maxKeys)
            objects += page.objects
            token = page.isTruncated ? page.nextContinuationToken : nil
        } while token != nil
        return objects
    }

    /// What a download found out about the object.
    public struct Download: Sendable, Equatable {
        /// Without quotes, as the listing has it.
        public var etag: String
        /// `x-amz-meta-photographer`, decoded; nil when the object has none.
        public var photographer: String?
        /// The object's size, which the file now has.
        public var size: Int64
        /// The store's `x-amz-checksum-sha256` of the object (base64; a multipart upload's is
        /// composite, `…-N`); nil when the object has none or the store gives none.
        public var checksumSHA256: String?

        public init(etag: String, photographer: String?, size: Int64, checksumSHA256: String? = nil) {
            self.etag = etag
            self.photographer = photographer
            self.size = size
            self.checksumSHA256 = checksumSHA256
        }
    }

    /// Asks a GET or HEAD for the object's checksum: SeaweedFS 4.48 and AWS return it only then.
    static let checksumMode = HTTPHeader(name: "x-amz-checksum-mode", value: "ENABLED")

    /// The object at `key` into the file at `path`, from byte `offset` on (what a cut download
    /// left there; `Range: bytes=N-`). A store that ignores the range sends the whole object,
    /// which replaces the file; an offset at the object's end (416) is a download already complete.
    /// With `etag` (the listing's), an object replaced since is refused (412) instead of
    /// splicing two photos into one file. The object's checksum is asked for; a ranged answer
    /// carries none (SeaweedFS 4.48, even for `bytes=0-`), so a resumed download asks a HEAD.
    public func download(key: String, to path: String, resumingAt offset: Int64 = 0, etag: String? = nil) throws(S3BucketError)
        -> Download
    {
        var headers = [Self.checksumMode]
        if offset > 0 { headers.append(HTTPHeader(name: "Range", value: "bytes=\(offset)-")) }
        if let etag { headers.append(HTTPHeader(name: "If-Match", value: "\"\(etag)\"")) }
        var request = request("GET", key: key, headers: headers)
        request.answerFile = AnswerFile(path: path, offset: offset)
        let name = location.displayName(key: key)
        let outcome = client.perform(request)
        if case .success(let response) = outcome, response.statusCode == 412 {
            throw .replaced(key: name)
        }
        if case .success(let response) = outcome, response.statusCode == 416 {
            let found = try head(key, name: name, etag: etag)
            guard found.size == offset else {
                throw .unexpectedRange(key: name, offset: offset, answer: "the object has \(found.size) bytes")
            }
            return found
        }
        let response = try answered(outcome, asking: "download \(name)")
        var found = Self.download(response)
        if response.statusCode == 206 {
            let range = response.header("Content-Range") ?? ""
            guard let total = Self.total(contentRange: range, startingAt: offset) else {
                throw .unexpectedRange(key: name, offset: offset, answer: "Content-Range: \(range)")
            }
            found.size = total
            // Never a ranged answer's own checksum: a store could give the range's.
            found.checksumSHA256 = try head(key, name: name, etag: found.etag).checksumSHA256
        }
        return found
    }

    /// The sizes of the `count` parts of the multipart upload at `key` (a HEAD of each with
    /// `?partNumber=K`: SeaweedFS and moto answer with the part's Content-Length), refused as
    /// replaced when its ETag is no longer `etag`; none when a part's answer has no size.
    public func partSizes(key: String, count: Int, etag: String) throws(S3BucketError) -> [Int64] {
        let name = location.displayName(key: key)
        var sizes: [Int64] = []
        for number in 1...max(count, 1) {
            let head = request(
                "HEAD", key: key, query: "partNumber=\(number)", headers: [HTTPHeader(name: "If-Match", value: "\"\(etag)\"")])
            let outcome = client.perform(head)
            if case .success(let response) = outcome, response.statusCode == 412 { throw .replaced(key: name) }
            let response = try answered(outcome, asking: "look at part \(number) of \(name)")
            guard let size = response.header("Content-Length").flatMap({ Int64($0) }) else { return [] }
            sizes.append(size)
        }
        return sizes
    }

    /// The object's headers (with its checksum), refused as replaced when its ETag is not `etag`.
    private func head(_ key: String, name: String, etag: String?) throws(S3BucketError) -> Download {
        var headers = [Self.checksumMode]
        if let etag { headers.append(HTTPHeader(name: "If-Match", value: "\"\(etag)\"")) }
        let outcome = client.perform(request("HEAD", key: key, headers: headers))
        if case .success(let response) = outcome, response.statusCode == 412 { throw .replaced(key: name) }
        let found = Self.download(try answered(outcome, asking: "look at \(name)"))
        if let etag, found.etag != etag { throw .replaced(key: name) }
        return found
    }

    /// The ETag, photographer, size and checksum an answer's headers give.
    private static func download(_ response: UploadResponse) -> Download {
        Download(
            etag: (response.header("ETag") ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "\" ")),
            photographer: response.header(photographerHeader).map(metadataText),
            size: response.header("Content-Length").flatMap { Int64($0) } ?? 0,
            checksumSHA256: response.header("x-amz-checksum-sha256").flatMap { $0.isEmpty ? nil : $0 })
    }

    /// The object's size from `bytes START-END/TOTAL`, when START is what was asked for.
    static func total(contentRange: String, startingAt offset: Int64) -> Int64? {
        guard contentRange.hasPrefix("bytes \(offset)-"), let slash = contentRange.lastIndex(of: "/") else { return nil }
        return Int64(contentRange[contentRange.index(after: slash)...])
    }

    /// The 2xx answer of `outcome`, or why there is none, said as what to do.
    private func answered(_ outcome: Result<UploadResponse, UploadTransportError>, asking what: String) throws(S3BucketError)
        -> UploadResponse
    {
        switch outcome {
        case .failure(let error):
            throw .unreachable(doing: what, error: error)
        case .success(let response) where !(200...299).contains(response.statusCode):
            throw .refused(
                doing: what, status: response.statusCode, code: S3Answer.errorCode(in: response.bodySummary), bucket: location.bucket)
        case .success(let response):
            return response
        }
    }
}

/// Why a request to a bucket came to nothing, and what to do about it.
public enum S3BucketError: Error, Equatable, CustomStringConvertible {
    case unreachable(doing: String, error: UploadTransportError)
    case refused(doing: String, status: Int, code: String?, bucket: String)
    case unreadableListing(bucket: String, answer: String)
    case unexpectedRange(key: String, offset: Int64, answer: String)
    case replaced(key: String)

    public var description: String {
        switch self {
        case .unreachable(let doing, let error):
            "could not \(doing): \(error.message); relay asks again when the store can be reached"
        case .refused(let doing, let status, let code, let bucket):
            "the S3 store refused to \(doing) (\(code.map { "\($0), " } ?? "")HTTP \(status)): check the keys' permissions "
                + "on bucket '\(bucket)', the endpoint and the region"
        case .unreadableListing(let bucket, let answer):
            "bucket '\(bucket)' answered a listing relay cannot read (\(answer)): is the endpoint an S3 store?"
        case .unexpectedRange(let key, let offset, let answer):
            "\(key) did not answer from byte \(offset) on (\(answer)): the object changed; download it again from the start"
        case .replaced(let key):
            "\(key) was replaced since it was listed (its ETag changed): list it again and take the new photo from the start"
        }
    }
}
