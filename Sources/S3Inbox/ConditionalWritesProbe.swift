import Foundation
import RelayCore
import Uploader

/// Why a desk will not use a store as a shared inbox. Each says what to do.
public enum ConditionalWritesError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The inbox's config cannot make a request (a missing key, a bad URL): nothing was sent.
    case config(ConfigError)
    /// 501 / NotImplemented to a conditional PUT.
    case notImplemented(store: String, said: String)
    /// A second `If-None-Match: *` PUT of the same key was written.
    case ignoresIfNoneMatch(store: String)
    /// An `If-Match` PUT with a wrong ETag was written.
    case ignoresIfMatch(store: String)
    /// The probe was refused for another reason (credentials, bucket, permissions).
    case refused(store: String, step: String, said: String)
    /// The store could not be reached, or failed.
    case unreachable(store: String, said: String)

    static let remedy =
        "use a store with conditional writes (AWS S3, MinIO, SeaweedFS 4.18 or later) or run one desk on this inbox"

    public var description: String {
        switch self {
        case .config(let error):
            error.description
        case .notImplemented(let store, let said):
            "this store does not do conditional writes (\(said)) at \(store): two desks could take the same photo; \(Self.remedy)"
        case .ignoresIfNoneMatch(let store):
            "this store does not refuse a second write of the same key (If-None-Match) at \(store): "
                + "two desks could take the same photo; \(Self.remedy)"
        case .ignoresIfMatch(let store):
            "this store writes over a claim whose ETag has changed (If-Match) at \(store): "
                + "two desks could take over the same photo; \(Self.remedy)"
        case .refused(let store, let step, let said):
            "the store refused relay's probe of conditional writes (\(step): \(said)) at \(store): "
                + "check the credentials and that they may put and delete objects under the inbox's prefix"
        case .unreachable(let store, let said):
            "could not check conditional writes at \(store) (\(said)): check the endpoint and the network, then start again"
        }
    }
}

/// The startup check's verdict from its three answers (pure): a probe key written with
/// `If-None-Match: *` (must be in), again (must be refused), then with `If-Match` on an ETag it
/// does not have (must be refused: 412, or 404 from a store that answers so).
public enum ConditionalWritesProbe {
    public static let wrongETag = ETag("00000000000000000000000000000000")

    public enum Step: String, Sendable, CaseIterable {
        case first = "first If-None-Match: * PUT"
        case second = "second If-None-Match: * PUT"
        case wrongETag = "If-Match PUT with a wrong ETag"

        public var condition: WriteCondition {
            self == .wrongETag ? .matches(ConditionalWritesProbe.wrongETag) : .absent
        }
    }

    /// What to do after the answer to `step`: nil means go on (or, after the last step, that
    /// conditional writes work).
    public static func judge(
        _ outcome: Result<UploadResponse, UploadTransportError>, step: Step, store: String
    ) -> ConditionalWritesError? {
        switch (ConditionalWriteAnswer.read(outcome, condition: step.condition), step) {
        case (.ours, .first), (.lost, .second), (.lost, .wrongETag): nil
        case (.ours, .second): .ignoresIfNoneMatch(store: store)
        case (.ours, .wrongETag): .ignoresIfMatch(store: store)
        case (.unsupported(let said), _): .notImplemented(store: store, said: said)
        case (.retryLater(let said), _): .unreachable(store: store, said: said)
        case (.refused(let said), _), (.lost(let said), .first): .refused(store: store, step: step.rawValue, said: said)
        }
    }
}
