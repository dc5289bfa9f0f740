import Foundation
import RelayCore

/// An S3-compatible bucket (AWS S3, SeaweedFS, MinIO, Ceph, R2, …): one PUT per photo, signed
/// by libcurl with AWS Signature Version 4 (`CURLOPT_AWS_SIGV4`).
///
/// Credentials come from `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`,
/// never from the config file. Each PUT carries `x-amz-checksum-sha256` of the file, so a body
/// damaged on the way is refused by the store instead of stored; hence a photo is sent only once
/// it is whole (no upload during its download).
public final class S3Destination: Destination {
    public static let accessKeyVariable = "AWS_ACCESS_KEY_ID"
    public static let secretKeyVariable = "AWS_SECRET_ACCESS_KEY"
    public static let sessionTokenVariable = "AWS_SESSION_TOKEN"

    private let config: RequestConfig
    private let requests: S3Requests
    private var location: S3Location { requests.location }
    private let policy: DeliveryPolicy
    private let client: HTTPUploadClient

    public init(
        config: RequestConfig, environment: [String: String], policy: DeliveryPolicy, cancellation: UploadCancellation
    ) throws(DestinationError) {
        self.config = config
        self.policy = policy
        do { requests = try S3Requests(config: config, environment: environment) } catch { throw .config(error) }
        do { client = try HTTPUploadClient(cancellation: cancellation) } catch { throw .transport(error) }
    }

    /// The credentials from the environment; a missing one is named.
    public static func signing(config: RequestConfig, region: String, environment: [String: String]) throws(ConfigError) -> AWSSigning {
        func value(_ name: String) -> String? {
            environment[name].flatMap { $0.isEmpty ? nil : $0 }
        }
        guard let accessKey = value(accessKeyVariable) else { throw .missingCredentials(variable: accessKeyVariable, config: config.label) }
        guard let secretKey = value(secretKeyVariable) else { throw .missingCredentials(variable: secretKeyVariable, config: config.label) }
        return AWSSigning(accessKey: accessKey, secretKey: secretKey, sessionToken: value(sessionTokenVariable), region: region)
    }

    public var acceptsGrowingFiles: Bool { false }

    public func deliver(_ item: DeliveryItem, growing: (any GrowingFile)?, attempt: Int, progress: UploadProgress?) -> DeliveryReport {
        put(
            item.filePath, key: location.key(for: item.template), contentType: item.contentType, relayKey: item.key,
            attempt: attempt, prefix: item.prefix, progress: progress)
    }

    /// A HEAD of the photo's key: there whole when the store's SHA-256 of the object is that
    /// of what a PUT would send now. The PUT's own `x-amz-checksum-sha256` is what is compared:
    /// the store keeps it with the object and returns it to a HEAD that asks with
    /// `x-amz-checksum-mode: ENABLED` (SeaweedFS 4.48 does, and only then), so no metadata of
    /// relay's own is needed. A store that returns none cannot tell: the PUT goes again, to the
    /// same key, which still leaves one object.
    public func probe(_ item: DeliveryItem, attempt: Int) -> EarlierAttempt {
        guard let checksum = try? Self.checksum(of: item.filePath, prefix: item.prefix) else { return .unknowable }
        let head = requests.request(
            "HEAD", key: location.key(for: item.template), headers: [HTTPHeader(name: "x-amz-checksum-mode", value: "ENABLED")])
        return .asked(client.perform(head), attempt: attempt, policy: policy) { S3Answer.earlierAttempt($0, checksum: checksum) }
    }

    public func location(of item: DeliveryItem) -> String {
        location.displayName(key: location.key(for: item.template))
    }

    /// `PREFIX/SESSION/manifest.json` then `PREFIX/SESSION/_DONE`, PREFIX being the key
    /// template's fixed folder.
    public func deliverSet(manifest: String, marker: String, session: String) -> DeliveryReport? {
        let folder = location.keyTemplate.sessionFolder(session)
        return .manifestThenDone(manifest: manifest, marker: marker) { file, name in
            put(
                file, key: folder + "/" + name, contentType: ContentType.of(fileName: name),
                relayKey: nil, attempt: 0)
        }
    }

    /// One PUT of the file at `filePath` under `key`, with its checksum.
    private func put(
        _ filePath: String, key: String, contentType: String, relayKey: String?, attempt: Int,
        prefix: BodyPrefix? = nil, progress: UploadProgress? = nil
    ) -> DeliveryReport {
        let checksum: String
        do {
            checksum = try Self.checksum(of: filePath, prefix: prefix)
        } catch {
            let failure = UploadTransportError(category: .fileUnreadable, message: "\(filePath): \(error.localizedDescription)")
            return DeliveryReport(.failure(failure), decision: policy.decide(.failure(failure), attempt: attempt))
        }
        var headers = [HTTPHeader(name: "x-amz-checksum-sha256", value: checksum)]
        // The photo's key travels as object metadata: a consumer can tell a rendition from its original.
        if let relayKey { headers.append(HTTPHeader(name: "x-amz-meta-relay-key", value: relayKey)) }
        var request = requests.request("PUT", key: key, headers: headers, filePath: filePath, contentType: contentType)
        request.maxBytesPerSecond = config.maxBytesPerSecond.flatMap { $0 > 0 ? $0 : nil }
        request.prefix = prefix
        let outcome = client.perform(request, progress: progress)
        let decision = S3Answer.decide(outcome, attempt: attempt, bucket: location.bucket, region: location.region, policy: policy)
        return DeliveryReport(outcome, decision: decision)
    }

    /// The base64 SHA-256 of what is sent: the file, behind its stamp when it has one.
    private static func checksum(of filePath: String, prefix: BodyPrefix?) throws -> String {
        try SHA256Digest.of(fileAt: URL(fileURLWithPath: filePath), prefix: prefix).base64()
    }

    public func summary(of item: DeliveryItem) -> String {
        var parts = ["PUT \(location.displayName(key: location.key(for: item.template)))", "(\(location.endpoint), \(location.region))"]
        parts.append(contentsOf: RequestBuilder.redactedHeaders(config.headers))
        parts.append("x-amz-meta-relay-key: \(item.key)")
        return parts.joined(separator: " ")
    }
}

extension S3Destination: DestinationKind {
    public static let schemes = ["s3"]

    public static let endpoint = ConfigField(
        "endpoint", .webURL, option: "--endpoint", placeholder: "http://HOST:PORT",
        help: "an S3-compatible server instead of AWS (keys from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN)")
    public static let region = ConfigField(
        "region", .text, option: "--region", placeholder: "REGION", help: "the bucket's region (us-east-1 when not given)")
    public static let addressing = ConfigField(
        "addressing", .choice(S3Location.Addressing.allCases.map(\.rawValue)), option: "--addressing", placeholder: "path|virtual",
        help: "bucket in the path or in the host name (virtual for AWS, path with --endpoint, when not given)")

    public static let fields = [endpoint, region, addressing]

    /// Bucket names by AWS's rules (3–63 lower-case letters, digits, `.` and `-`), an endpoint
    /// without a path, a region of letters, digits and `-`.
    public static func validate(_ config: RequestConfig, url: URLComponents) throws(ConfigError) {
        let bucket = url.host ?? ""
        let allowed = bucket.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "." || $0 == "-" }
        guard (3...63).contains(bucket.count), allowed, !bucket.hasPrefix("."), !bucket.hasPrefix("-") else {
            throw .invalidURL(
                config.url,
                reason: "'\(bucket)' is not a bucket name (3 to 63 lower-case letters, digits, '.' and '-'); "
                    + "write s3://BUCKET/PREFIX")
        }
        if let endpoint = config.option(Self.endpoint), let parsed = URLComponents(string: endpoint),
            !(parsed.path.isEmpty || parsed.path == "/")
        {
            throw .invalidURL(endpoint, reason: "an S3 endpoint is http://HOST[:PORT] or https://HOST[:PORT], without a path")
        }
        if let region = config.option(Self.region),
            !region.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-") })
        {
            throw .invalidSetting(region, reason: "an S3 region is letters, digits and '-', e.g. us-east-1")
        }
    }

    public static func checkEnvironment(_ config: RequestConfig, environment: [String: String]) throws(ConfigError) {
        _ = try signing(config: config, region: config.option(Self.region) ?? S3Location.defaultRegion, environment: environment)
    }

    public static func make(
        _ config: RequestConfig, environment: [String: String], policy: DeliveryPolicy, cancellation: UploadCancellation
    ) throws(DestinationError) -> any Destination {
        try S3Destination(config: config, environment: environment, policy: policy, cancellation: cancellation)
    }
}
