import Foundation
import RelayCore

/// What to do with a photo after one upload attempt.
public enum DeliveryDecision: Sendable, Equatable {
    /// The gallery has it (2xx): remove it from the spool.
    case delivered
    /// Try again after this many seconds. There is no attempt limit: a venue network can be
    /// down for an hour and a photo must not be given up.
    case retry(after: TimeInterval)
    /// Retrying cannot help (the request or the photo is wrong): move it to `spool/failed/`.
    case permanent(reason: String)
}

/// The delivery rules as a pure function of an attempt's outcome: 2xx delivered; 408, 425, 429,
/// 5xx and network failures retried with backoff (honouring `Retry-After`); other answers and
/// requests that can never be sent are permanent.
public struct DeliveryPolicy: Sendable, Equatable {
    public var backoff: Backoff
    /// Upper bound on a server's `Retry-After`, so a misconfigured server cannot park a photo
    /// for days.
    public var maxRetryAfter: TimeInterval

    public init(backoff: Backoff = Backoff(), maxRetryAfter: TimeInterval = 600) {
        self.backoff = backoff
        self.maxRetryAfter = maxRetryAfter
    }

    /// HTTP statuses that mean "not now" rather than "not this request".
    public static func isRetryable(statusCode: Int) -> Bool {
        statusCode == 408 || statusCode == 425 || statusCode == 429 || (500...599).contains(statusCode)
    }

    /// Network failures are retried; a request that is invalid or a file that cannot be read
    /// fails the same way every time, so retrying would only hide it.
    public static func isRetryable(_ error: UploadTransportError) -> Bool {
        switch error.category {
        case .invalidRequest, .fileUnreadable: return false
        case .couldNotConnect, .timeout, .dns, .connectionLost, .tls, .aborted, .sourceIncomplete, .other: return true
        }
    }

    /// Decides after attempt number `attempt` (0 for the first) of one photo.
    public func decide(
        _ outcome: Result<UploadResponse, UploadTransportError>,
        attempt: Int,
        using random: inout some RandomNumberGenerator
    ) -> DeliveryDecision {
        switch outcome {
        case .success(let response):
            let status = response.statusCode
            if (200...299).contains(status) { return .delivered }
            if Self.isRetryable(statusCode: status) {
                if let retryAfter = response.retryAfter, retryAfter.isFinite {
                    return .retry(after: min(max(retryAfter, 0), maxRetryAfter))
                }
                return .retry(after: backoff.delay(attempt: attempt, using: &random))
            }
            let body = response.bodySummary.isEmpty ? "" : ": \(response.bodySummary)"
            return .permanent(reason: "the gallery answered HTTP \(status)\(body)")
        case .failure(let error):
            guard Self.isRetryable(error) else { return .permanent(reason: error.description) }
            return .retry(after: backoff.delay(attempt: attempt, using: &random))
        }
    }

    public func decide(_ outcome: Result<UploadResponse, UploadTransportError>, attempt: Int) -> DeliveryDecision {
        var random = SystemRandomNumberGenerator()
        return decide(outcome, attempt: attempt, using: &random)
    }
}
