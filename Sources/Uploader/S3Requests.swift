import Foundation
import RelayCore

/// How every request to one S3 store is made from a config: its location, the keys from the
/// environment and the config's own headers. The destination and the desk's inbox sign the same
/// way, so one store config serves both.
public struct S3Requests: Sendable {
    public let location: S3Location
    let signing: AWSSigning
    /// The config's headers, and `x-amz-security-token` with temporary credentials.
    let headers: [HTTPHeader]
    let timeoutSeconds: Double?

    public init(config: RequestConfig, environment: [String: String]) throws(ConfigError) {
        location = try S3Location(config: config)
        signing = try S3Destination.signing(config: config, region: location.region, environment: environment)
        headers =
            try RequestBuilder.headers(for: config, environment: environment)
            + (signing.sessionToken.map { [HTTPHeader(name: "x-amz-security-token", value: $0)] } ?? [])
        timeoutSeconds = config.timeoutSeconds
    }

    /// A signed request for the object `key`, with `extra` headers after the config's.
    public func request(
        _ method: String, key: String, headers extra: [HTTPHeader] = [], body: UploadBody = .raw, filePath: String = "",
        contentType: String = "application/octet-stream"
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
            method: method, url: location.objectURL(key: key), headers: signed, body: body, filePath: filePath,
            idempotencyKey: "", timeoutSeconds: timeoutSeconds, contentType: contentType, signing: signing)
    }
}
