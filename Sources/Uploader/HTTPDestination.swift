import Foundation
import RelayCore

/// An HTTP endpoint (the gallery): a multipart form or a raw body per photo, by a request config
/// (the Camera2URL model). Status codes, the request rules and `Retry-After` stay in here.
public final class HTTPDestination: Destination {
    private let config: RequestConfig
    private let environment: [String: String]
    private let policy: DeliveryPolicy
    private let client: HTTPUploadClient

    public init(
        config: RequestConfig, environment: [String: String], policy: DeliveryPolicy, cancellation: UploadCancellation
    ) throws(UploadTransportError) {
        self.config = config
        self.environment = environment
        self.policy = policy
        client = try HTTPUploadClient(cancellation: cancellation)
    }

    /// A request without a body (GET, DELETE) has nothing to send early.
    public var acceptsGrowingFiles: Bool { UploadPlan.sendsBody(method: config.verb.rawValue) }

    public func deliver(_ item: DeliveryItem, growing: (any GrowingFile)?, attempt: Int, progress: UploadProgress?) -> DeliveryReport {
        let outcome: Result<UploadResponse, UploadTransportError>
        do {
            let request = try RequestBuilder.request(for: config, item: item, environment: environment)
            outcome = client.perform(request, growing: growing, progress: progress)
        } catch {
            outcome = .failure(UploadTransportError(category: .invalidRequest, message: error.description))
        }
        return DeliveryReport(outcome, decision: policy.decide(outcome, attempt: attempt))
    }

    public func location(of item: DeliveryItem) -> String {
        (try? RequestBuilder.url(for: config, item: item)) ?? config.url
    }

    /// One POST of the manifest to `manifestUrl`, with the config's headers: for a gallery the
    /// manifest arriving is the marker. Nil without a `manifestUrl`.
    public func deliverSet(manifest: String, marker: String, session: String) -> DeliveryReport? {
        guard let url = config.manifestUrl else { return nil }
        let outcome: Result<UploadResponse, UploadTransportError>
        do {
            let request = UploadRequest(
                method: "POST", url: url, headers: try RequestBuilder.headers(for: config, environment: environment), body: .raw, filePath: manifest, idempotencyKey: "manifest-" + session,
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
