import Foundation
import Uploader

/// What the answer to a conditional PUT (a claim, a takeover, a renewal) means. The stores
/// disagree on how they say "not yours" (docs/S3INBOX.md): 412 on both, 404 NoSuchKey from AWS
/// and moto where SeaweedFS says 412 (If-Match on a claim deleted meanwhile), 409
/// ConditionalRequestConflict from AWS alone. relay tells them apart in what it says, never in
/// what it does.
public enum ConditionalWriteAnswer: Sendable, Equatable {
    /// The write is in: the claim is this desk's, its new ETag what the next `If-Match` names
    /// (nil if the store sent none).
    case ours(ETag?)
    /// Another desk's write came first: leave the photo. `said` is the store's words.
    case lost(said: String)
    /// The store has no conditional writes: two desks on it could take the same photo.
    case unsupported(said: String)
    /// The store or the network failed: the same write later.
    case retryLater(said: String)
    /// Refused for a reason the desk's owner must fix (credentials, bucket, permissions).
    case refused(said: String)

    public static func read(_ outcome: Result<UploadResponse, UploadTransportError>, condition: WriteCondition) -> Self {
        let response: UploadResponse
        switch outcome {
        case .failure(let error): return .retryLater(said: error.message)
        case .success(let answer): response = answer
        }
        let code = S3Answer.errorCode(in: response.bodySummary)
        let said = code.map { "\($0), HTTP \(response.statusCode)" } ?? "HTTP \(response.statusCode)"
        if code == "NotImplemented" || response.statusCode == 501 { return .unsupported(said: said) }
        if code == "NoSuchBucket" { return .refused(said: said) }
        switch response.statusCode {
        case 200...299: return .ours(response.header("ETag").map(ETag.init))
        case 412, 409: return .lost(said: said)
        case 404 where condition != .absent: return .lost(said: said)
        case 500...599, 429, 408: return .retryLater(said: said)
        default: return .refused(said: said)
        }
    }
}
