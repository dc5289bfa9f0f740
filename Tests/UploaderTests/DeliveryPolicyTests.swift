import RelayCore
import TestSupport
import Uploader
import XCTest

final class DeliveryPolicyTests: XCTestCase {
    private let policy = DeliveryPolicy(backoff: Backoff(base: 0.5, cap: 60), maxRetryAfter: 600)

    private func decide(_ status: Int, retryAfter: TimeInterval? = nil, attempt: Int = 0) -> DeliveryDecision {
        var random = SeededRandom(seed: 1)
        let response = UploadResponse(statusCode: status, retryAfter: retryAfter, bodySummary: "body text")
        return policy.decide(.success(response), attempt: attempt, using: &random)
    }

    func testTwoHundredsAreDelivered() {
        for status in [200, 201, 202, 204, 299] {
            XCTAssertEqual(decide(status), .delivered, "status \(status)")
        }
    }

    func testTransientStatusesAreRetriedWithinTheBackoffCeiling() {
        for status in [408, 425, 429, 500, 502, 503, 504, 599] {
            guard case .retry(let after) = decide(status, attempt: 3) else {
                return XCTFail("status \(status) should be retried, got \(decide(status, attempt: 3))")
            }
            XCTAssert((0...4).contains(after), "status \(status): \(after) outside [0, 0.5 × 2^3]")
        }
    }

    func testOtherAnswersArePermanentAndSayWhy() {
        for status in [100, 199, 301, 302, 304, 400, 401, 403, 404, 405, 409, 410, 413, 415, 422, 451] {
            guard case .permanent(let reason) = decide(status) else {
                return XCTFail("status \(status) should be permanent, got \(decide(status))")
            }
            XCTAssert(reason.contains("HTTP \(status)"), reason)
            XCTAssert(reason.contains("body text"), reason)
        }
    }

    func testRetryAfterIsHonouredAndClamped() {
        XCTAssertEqual(decide(503, retryAfter: 7), .retry(after: 7))
        XCTAssertEqual(decide(429, retryAfter: 0), .retry(after: 0))
        XCTAssertEqual(decide(503, retryAfter: 86_400), .retry(after: 600))
        XCTAssertEqual(decide(503, retryAfter: -5), .retry(after: 0))
        XCTAssertEqual(decide(200, retryAfter: 30), .delivered)
        guard case .permanent = decide(400, retryAfter: 30) else { return XCTFail("400 with Retry-After is still permanent") }
    }

    func testNetworkErrorsAreRetriedButBrokenRequestsAreNot() {
        for category in UploadTransportError.Category.allCases {
            var random = SeededRandom(seed: 2)
            let error = UploadTransportError(category: category, curlCode: 7, message: "detail")
            let decision = policy.decide(.failure(error), attempt: 0, using: &random)
            switch category {
            case .invalidRequest, .fileUnreadable:
                guard case .permanent(let reason) = decision else { return XCTFail("\(category): \(decision)") }
                XCTAssert(reason.contains("detail"), reason)
            default:
                guard case .retry(let after) = decision else { return XCTFail("\(category): \(decision)") }
                XCTAssert((0...0.5).contains(after), "\(category): \(after)")
            }
        }
    }

    func testThereIsNoAttemptLimitForRetryableFailures() {
        var random = SeededRandom(seed: 3)
        let error = UploadTransportError(category: .couldNotConnect, message: "refused")
        for attempt in [10, 100, 10_000, Int.max] {
            guard case .retry(let after) = policy.decide(.failure(error), attempt: attempt, using: &random) else {
                return XCTFail("attempt \(attempt) gave up")
            }
            XCTAssert((0...60).contains(after))
        }
    }
}
