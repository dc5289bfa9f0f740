import Foundation
import Uploader

/// What a GET of a photo's claim answered, read (pure): the claim as the rules take it, and the
/// store's own time from its `Date` header, against which the claim's `Last-Modified` is judged.
public enum ClaimLookup: Sendable, Equatable {
    case seen(ClaimSeen, storeNow: Date)
    /// The store or the network failed, or the answer lacked a time to judge by: ask again later.
    case retryLater(said: String)
    /// Refused for a reason the desk's owner must fix (credentials, bucket, permissions).
    case refused(said: String)

    public static func read(_ outcome: Result<UploadResponse, UploadTransportError>) -> Self {
        let response: UploadResponse
        switch outcome {
        case .failure(let error): return .retryLater(said: error.message)
        case .success(let answer): response = answer
        }
        let code = S3Answer.errorCode(in: response.bodySummary)
        let said = code.map { "\($0), HTTP \(response.statusCode)" } ?? "HTTP \(response.statusCode)"
        func time(_ header: String) -> Date? { response.header(header).flatMap(RetryAfter.httpDate) }
        switch response.statusCode {
        case 200:
            guard let storeNow = time("Date"), let lastModified = time("Last-Modified"), let etag = response.header("ETag") else {
                return .retryLater(said: "the claim came without Date, Last-Modified or ETag (\(said))")
            }
            let seen: ClaimSeen =
                InboxClaim(decoding: response.body).map { .claim($0, etag: ETag(etag), lastModified: lastModified) }
                ?? .unreadable(etag: ETag(etag), lastModified: lastModified)
            return .seen(seen, storeNow: storeNow)
        case 404 where code != "NoSuchBucket":
            guard let storeNow = time("Date") else { return .retryLater(said: "the store's answer had no Date (\(said))") }
            return .seen(.none, storeNow: storeNow)
        case 500...599, 429, 408:
            return .retryLater(said: said)
        default:
            return .refused(said: said)
        }
    }
}

extension S3Bucket {
    /// The claim at `key` when it is `desk`'s own about `object`, with its ETag: asked after a
    /// conditional write of the claim was refused, since the write it lost to may be the desk's
    /// own (an answer lost after the store took it, or a write libcurl sent again on a new
    /// connection); nil when it is another desk's, or the store cannot say now.
    func ownClaim(at key: String, desk: String, object: InboxClaim.Object) -> (claim: InboxClaim, etag: ETag)? {
        guard case .seen(.claim(let claim, let etag, _), _) = ClaimLookup.read(perform(request("GET", key: key))),
            claim.desk == desk, claim.object == object
        else { return nil }
        return (claim, etag)
    }
}
