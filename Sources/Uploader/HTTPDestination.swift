import Foundation
import RelayCore

/// An HTTP endpoint (the gallery): a multipart form or a raw body per photo, by a request config
/// (the Camera2URL model). Status codes, the request rules and `Retry-After` stay in here.
public final class HTTPDestination: Destination {
    private let config: RequestConfig
    private let settings: HTTPSettings
    private let environment: [String: String]
    private let policy: DeliveryPolicy
    private let client: HTTPUploadClient
    /// The gallery answered a body without a length with 411 Length Required: photos whose size
    /// is not known in advance go to it once complete.
    private var refusesChunkedBodies = false

    public init(
        config: RequestConfig, environment: [String: String], policy: DeliveryPolicy, cancellation: UploadCancellation
    ) throws(UploadTransportError) {
        self.config = config
        settings = HTTPSettings(config)
        self.environment = environment
        self.policy = policy
        client = try HTTPUploadClient(cancellation: cancellation)
    }

    /// A request without a body (GET, DELETE) has nothing to send early.
    public static func acceptsGrowingFiles(_ config: RequestConfig) -> Bool { UploadPlan.sendsBody(method: config.verb.rawValue) }

    public var acceptsGrowingFiles: Bool { Self.acceptsGrowingFiles(config) }

    /// HTTP/1.1 sends such a body chunked, which a gallery may refuse once (411).
    public var acceptsGrowingFilesOfUnknownSize: Bool { acceptsGrowingFiles && !refusesChunkedBodies }

    public func deliver(_ item: DeliveryItem, growing: (any GrowingFile)?, attempt: Int, progress: UploadProgress?) -> DeliveryReport {
        let outcome: Result<UploadResponse, UploadTransportError>
        let chunked = growing != nil && growing?.finalSize == nil
        do {
            let request = try RequestBuilder.request(for: config, item: item, environment: environment)
            outcome = client.perform(request, growing: growing, progress: progress)
        } catch {
            outcome = .failure(UploadTransportError(category: .invalidRequest, message: error.description))
        }
        if chunked, case .success(let answer) = outcome, answer.statusCode == 411 {
            refusesChunkedBodies = true
            var report = DeliveryReport(outcome, decision: .retry(after: 0))
            report.problem =
                "the gallery wants each upload's length (HTTP 411): photos whose size is known only at their end "
                + "are sent once complete"
            return report
        }
        return DeliveryReport(outcome, decision: policy.decide(outcome, attempt: attempt))
    }

    public func location(of item: DeliveryItem) -> String {
        (try? RequestBuilder.url(for: config, item: item)) ?? config.url
    }

    /// One POST of the manifest to `manifestUrl`, with the config's headers: for a gallery the
    /// manifest arriving is the marker. Nil without a `manifestUrl`.
    public func deliverSet(manifest: String, marker: String, session: String) -> DeliveryReport? {
        guard let url = settings.manifestUrl else { return nil }
        let outcome: Result<UploadResponse, UploadTransportError>
        do {
            let request = UploadRequest(
                method: "POST", url: url, headers: try RequestBuilder.headers(for: config, environment: environment), body: .raw,
                filePath: manifest, idempotencyKey: "manifest-" + session,
                timeoutSeconds: config.timeoutSeconds, maxBytesPerSecond: nil, contentType: "application/json", signing: nil)
            outcome = client.perform(request, growing: nil)
        } catch {
            outcome = .failure(UploadTransportError(category: .invalidRequest, message: error.description))
        }
        return DeliveryReport(outcome, decision: policy.decide(outcome, attempt: 0))
    }

    public func summary(of item: DeliveryItem) -> String {
        RequestBuilder.summary(for: config, item: item)
    }
}

/// An HTTP config's own fields: how the photo travels and where a session's manifest goes.
public struct HTTPSettings: Sendable, Equatable {
    /// How the photo travels: inside a multipart form (default) or as the bare JPEG body.
    public enum BodyMode: String, Sendable, CaseIterable {
        case multipart, raw
    }

    public static let defaultFileField = "file"

    /// Extra multipart form fields, sent before the file part.
    public var fields: [String: String]
    /// Name of the multipart file part.
    public var fileField: String
    public var body: BodyMode
    /// Where a complete session's manifest is POSTed (JSON), the gallery's sign that the set is
    /// whole; no manifest is sent when absent.
    public var manifestUrl: String?

    public init(_ config: RequestConfig) {
        fields = config.options[HTTPDestination.formFields.name]?.textPairs ?? [:]
        fileField = config.option(HTTPDestination.fileField) ?? Self.defaultFileField
        body = config.option(HTTPDestination.body).flatMap(BodyMode.init(rawValue:)) ?? .multipart
        manifestUrl = config.option(HTTPDestination.manifestURL)
    }
}

extension HTTPDestination: DestinationKind {
    public static let schemes = ["http", "https"]

    public static let formFields = ConfigField(
        "fields", .pairs, option: "--field", placeholder: "name=value",
        help: "a form field sent with the photo; its value may hold placeholders ({set}, {exposure} …)")
    public static let fileField = ConfigField(
        "fileField", .text, option: "--file-field", placeholder: "NAME",
        help: "the form field that carries the photo (file when not given)")
    public static let body = ConfigField(
        "body", .choice(HTTPSettings.BodyMode.allCases.map(\.rawValue)), option: "--body", placeholder: "multipart|raw",
        help: "a multipart form (when not given) or the photo alone as the body")
    public static let manifestURL = ConfigField(
        "manifestUrl", .webURL, option: "--manifest-url", placeholder: "URL",
        help: "where the manifest of a run's named session is POSTed (S3, FTP and WebDAV get PREFIX/SESSION/manifest.json and _DONE)")

    public static let fields = [formFields, fileField, body, manifestURL]

    public static func validate(_ config: RequestConfig, url: URLComponents) throws(ConfigError) {
        if let fileField = config.option(Self.fileField), fileField.contains("\"") {
            throw .invalidField(fileField, reason: "fileField cannot hold quotes or line breaks")
        }
        // A field's value may hold placeholders; a misspelt one ({exposre}) would go out as
        // written, so it is refused as in a URL. Other braces (JSON, say) stay text.
        for (name, value) in HTTPSettings(config).fields {
            var rest = Substring(value)
            while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
                let word = rest[rest.index(after: open)..<close]
                if !word.isEmpty, word.allSatisfy({ $0.isLetter && $0.isLowercase }), !PathTemplate.placeholders.contains(String(word)) {
                    throw .invalidField(
                        "\(name)=\(value)",
                        reason: "{\(word)} is not a placeholder (use " + PathTemplate.placeholders.map { "{\($0)}" }.joined(separator: " ")
                            + ")")
                }
                rest = rest[rest.index(after: close)...]
            }
        }
    }

    public static func make(
        _ config: RequestConfig, environment: [String: String], policy: DeliveryPolicy, cancellation: UploadCancellation
    ) throws(DestinationError) -> any Destination {
        do {
            return try HTTPDestination(config: config, environment: environment, policy: policy, cancellation: cancellation)
        } catch {
            throw .transport(error)
        }
    }

    public static func target(of config: RequestConfig) -> String {
        config.verb.rawValue + " " + config.url
    }
}
