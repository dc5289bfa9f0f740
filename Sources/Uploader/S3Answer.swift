import Foundation

/// The S3 rules on top of the HTTP ones (pure). An S3 store says why it refused in an XML
/// `<Code>` (AWS's S3 error-code list, which SeaweedFS, MinIO and Ceph follow): refused
/// credentials, a missing bucket, a wrong region or a skewed clock are the photographer's to
/// fix and are named as such; a body that arrived damaged (`BadDigest`) is sent again; `SlowDown`,
/// `InternalError` and other 5xx are retried by the HTTP rules.
public enum S3Answer {
    /// The `<Code>` of an S3 error body, if it has one.
    public static func errorCode(in body: String) -> String? {
        guard let open = body.range(of: "<Code>"), let close = body.range(of: "</Code>", range: open.upperBound..<body.endIndex) else {
            return nil
        }
        return String(body[open.upperBound..<close.lowerBound])
    }

    public static func decide(
        _ outcome: Result<UploadResponse, UploadTransportError>, attempt: Int, bucket: String, region: String,
        policy: DeliveryPolicy
    ) -> DeliveryDecision {
        guard case .success(let response) = outcome, !(200...299).contains(response.statusCode) else {
            return policy.decide(outcome, attempt: attempt)
        }
        let code = errorCode(in: response.bodySummary) ?? ""
        let said = code.isEmpty ? "HTTP \(response.statusCode)" : "\(code), HTTP \(response.statusCode)"
        switch code {
        case "InvalidAccessKeyId", "SignatureDoesNotMatch", "InvalidToken", "ExpiredToken", "TokenRefreshRequired":
            return .permanent(
                reason: "the S3 store refused relay's credentials (\(said)): check AWS_ACCESS_KEY_ID, "
                    + "AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN) for bucket '\(bucket)', then relay retry")
        case "AccessDenied", "AllAccessDisabled":
            return .permanent(
                reason: "the S3 store denied writing to bucket '\(bucket)' (\(said)): give these credentials "
                    + "permission to put objects there, then relay retry")
        case "NoSuchBucket":
            return .permanent(reason: "bucket '\(bucket)' does not exist (\(said)): create it or fix the s3:// URL, then relay retry")
        case "AuthorizationHeaderMalformed", "PermanentRedirect", "IllegalLocationConstraintException":
            return .permanent(
                reason: "bucket '\(bucket)' is not in region '\(region)' or not at this endpoint (\(said)): "
                    + "set the config's region and endpoint, then relay retry")
        case "RequestTimeTooSkewed":
            return .permanent(
                reason: "this machine's clock is too far off for the S3 store to accept a signature (\(said)): "
                    + "set the clock, then relay retry")
        case "BadDigest", "XAmzContentSHA256Mismatch", "InvalidDigest":
            // The file on disk is checksummed afresh for the next attempt.
            return .retry(after: policy.backoff.delay(attempt: attempt))
        default:
            if response.statusCode == 403 {
                return .permanent(
                    reason: "the S3 store refused the upload (\(said)): check the credentials and the "
                        + "bucket's policy, then relay retry")
            }
            return policy.decide(outcome, attempt: attempt)
        }
    }

    /// Whether a HEAD's answer shows the object whole: the store's SHA-256 of it (as the PUT
    /// sent it) is `checksum`, that of what a PUT would send now. Without one the store cannot tell.
    public static func earlierAttempt(_ head: UploadResponse, checksum: String) -> EarlierAttempt {
        switch head.header("x-amz-checksum-sha256") {
        case checksum: .landed(answer: "found by HEAD, same SHA-256")
        case nil: .unknowable
        default: .absent
        }
    }
}
