import Foundation
import RelayCore
import Uploader

/// The desk's startup check of its inbox's store: two desks are safe on it only if it refuses a
/// second `If-None-Match: *` write and an `If-Match` write on a changed ETag. Run before the first
/// listing; the probe object is deleted afterwards.
public enum ConditionalWrites {
    /// Probes the store of the inbox config `config` (its `s3://BUCKET/PREFIX`, endpoint, region
    /// and addressing; keys from `environment`) under `PREFIX.relay/probe/`.
    public static func check(
        config: RequestConfig, environment: [String: String], desk: String, cancellation: UploadCancellation = UploadCancellation()
    ) throws(ConditionalWritesError) {
        let bucket: S3Bucket
        do {
            bucket = try S3Bucket(config: config, environment: environment, cancellation: cancellation)
        } catch {
            switch error {
            case .config(let config): throw .config(config)
            case .transport(let transport): throw .unreachable(store: config.url, said: transport.description)
            }
        }
        let location = bucket.location
        let key = location.inboxPrefix + InboxClaim.relayFolder + "probe/\(desk)-\(UUID().uuidString.lowercased())"
        let store = "\(location.displayName(key: key)) (\(location.endpoint))"
        defer { _ = bucket.perform(bucket.request("DELETE", key: key)) }
        for step in ConditionalWritesProbe.Step.allCases {
            let put = bucket.request(
                "PUT", key: key, headers: [step.condition.header],
                body: .inline(Array("relay conditional-write probe\n".utf8)), contentType: "text/plain")
            if let error = ConditionalWritesProbe.judge(bucket.perform(put), step: step, store: store) { throw error }
        }
    }
}

extension S3Location {
    /// The inbox's `PREFIX`: the URL's fixed folder with its `/` (`s3://b/inbox/{name}` gives
    /// `inbox/`), or `""` for a whole bucket.
    public var inboxPrefix: String {
        let folder = keyTemplate.fixedFolder
        return folder.isEmpty ? "" : folder + "/"
    }
}
