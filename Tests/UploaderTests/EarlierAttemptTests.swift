import RelayCore
import Uploader
import XCTest

/// `deliverAskingFirst`: which attempts ask the destination, and what each answer does.
final class EarlierAttemptTests: XCTestCase {
    /// A destination that answers the probe as told and counts what it is asked.
    private final class Answering: Destination {
        let answer: EarlierAttempt
        var probes = 0
        var sends = 0
        init(_ answer: EarlierAttempt) { self.answer = answer }
        var acceptsGrowingFiles: Bool { false }
        func deliver(_ item: DeliveryItem, growing: (any GrowingFile)?, attempt: Int, progress: UploadProgress?) -> DeliveryReport {
            sends += 1
            return DeliveryReport(decision: .delivered, evidence: .reachable, statusCode: 201, answer: "HTTP 201")
        }
        func probe(_ item: DeliveryItem, attempt: Int) -> EarlierAttempt {
            probes += 1
            return answer
        }
        func location(of item: DeliveryItem) -> String { item.name }
        func deliverSet(manifest: String, marker: String, session: String) -> DeliveryReport? { nil }
        func summary(of item: DeliveryItem) -> String { item.name }
    }

    private let item = DeliveryItem(
        filePath: "/nonexistent/IMG_0001.JPG", name: "IMG_0001.JPG", key: "key-1", contentType: "image/jpeg",
        template: PathTemplate.Values(
            name: "IMG_0001.JPG", capturedAt: Date(timeIntervalSince1970: 0), camera: "", serial: "", sequence: 1, run: "day"))

    func testAFirstAttemptSendsWithoutAsking() {
        let destination = Answering(.landed(answer: "found"))
        let report = destination.deliverAskingFirst(item, growing: nil, attempt: 0, progress: nil)
        XCTAssertEqual(report.statusCode, 201)
        XCTAssertEqual([destination.probes, destination.sends], [0, 1])
    }

    func testAReSendThatFindsThePhotoIsDeliveredWithoutSending() {
        let destination = Answering(.landed(answer: "attachment 42, by its slug"))
        let report = destination.deliverAskingFirst(item, growing: nil, attempt: 2, progress: nil)
        XCTAssertEqual(report.decision, .delivered)
        XCTAssertEqual(report.answer, "already there: attachment 42, by its slug")
        XCTAssertEqual([destination.probes, destination.sends], [1, 0])
    }

    func testAReSendThatDoesNotFindItSends() {
        for answer in [EarlierAttempt.absent, .unknowable] {
            let destination = Answering(answer)
            XCTAssertEqual(destination.deliverAskingFirst(item, growing: nil, attempt: 1, progress: nil).statusCode, 201)
            XCTAssertEqual([destination.probes, destination.sends], [1, 1], "\(answer)")
        }
    }

    func testAnUnansweredQuestionSettlesTheAttemptWithoutSending() {
        let failed = DeliveryReport(decision: .retry(after: 3), evidence: .unreachable, problem: "connection refused")
        let destination = Answering(.unanswered(failed))
        XCTAssertEqual(destination.deliverAskingFirst(item, growing: nil, attempt: 1, progress: nil), failed)
        XCTAssertEqual([destination.probes, destination.sends], [1, 0])
    }

    /// What an HTTP question's answer means: a 2xx is read, 404 is absent, "not now" and no
    /// answer are unanswered (with the backoff of that attempt), any other refusal cannot tell.
    func testAnHTTPQuestionsAnswer() {
        let policy = DeliveryPolicy(backoff: Backoff(base: 1, cap: 1000))
        let found = EarlierAttempt.landed(answer: "read")
        func asked(_ outcome: Result<UploadResponse, UploadTransportError>, attempt: Int = 1) -> EarlierAttempt {
            .asked(outcome, attempt: attempt, policy: policy) { _ in found }
        }
        XCTAssertEqual(asked(.success(UploadResponse(statusCode: 207))), found)
        XCTAssertEqual(asked(.success(UploadResponse(statusCode: 404))), .absent)
        XCTAssertEqual(asked(.success(UploadResponse(statusCode: 403))), .unknowable, "allowed to write, not to read")
        guard case .unanswered(let busy) = asked(.success(UploadResponse(statusCode: 503, retryAfter: 7))) else {
            return XCTFail("503 is no answer")
        }
        XCTAssertEqual(busy.decision, .retry(after: 7))
        XCTAssertEqual(busy.problem, "could not ask whether an earlier attempt landed: HTTP 503")
        let refused = UploadTransportError(category: .couldNotConnect, message: "refused")
        guard case .unanswered(let down) = asked(.failure(refused), attempt: 9), case .retry(let delay) = down.decision else {
            return XCTFail("no answer")
        }
        XCTAssertLessThanOrEqual(delay, 512)
        XCTAssertEqual(down.evidence, .unreachable)
    }

    func testWholeIsTheSizeOrTheChecksumOfWhatWouldBeSentNow() {
        XCTAssertEqual(EarlierAttempt.bySize(found: 1000, sending: 1000, how: "PROPFIND"), .landed(answer: "found by PROPFIND, 1000 bytes"))
        XCTAssertEqual(EarlierAttempt.bySize(found: 999, sending: 1000, how: "PROPFIND"), .absent, "cut short")
        XCTAssertEqual(EarlierAttempt.bySize(found: nil, sending: 1000, how: "PROPFIND"), .absent)

        let head = UploadResponse(statusCode: 200, headers: [HTTPHeader(name: "X-Amz-Checksum-Sha256", value: "abc=")])
        XCTAssertEqual(S3Answer.earlierAttempt(head, checksum: "abc="), .landed(answer: "found by HEAD, same SHA-256"))
        XCTAssertEqual(S3Answer.earlierAttempt(head, checksum: "xyz="), .absent)
        XCTAssertEqual(S3Answer.earlierAttempt(UploadResponse(statusCode: 200), checksum: "abc="), .unknowable, "a store without checksums")
    }
}
