import Foundation
import RunEvents
import Spool
import Uploader
import XCTest

@testable import Pipeline

/// How a worker settles an attempt, without a destination, a spool or a thread.
final class AttemptVerdictTests: XCTestCase {
    private let sent = Delivery(answer: "HTTP 201", bytesSent: 10, seconds: 1, shutterToGallery: 2, duringDownload: false)

    private func report(
        _ decision: DeliveryDecision, status: Int? = nil, problem: String? = nil, answer: String? = nil,
        transport: UploadTransportError? = nil
    ) -> DeliveryReport {
        DeliveryReport(
            decision: decision, evidence: .reachable, statusCode: status, answer: answer, problem: problem, transportError: transport)
    }

    func testADeliveryIsRecordedWithItsFigures() {
        let verdict = AttemptVerdict.settling(
            .delivered, report: report(.delivered, status: 201), attempts: 1, stopping: false, keptIn: nil
        ) { sent }
        XCTAssertEqual(verdict, AttemptVerdict(result: .delivered, outcome: .delivered(sent)))
    }

    func testARetryCarriesTheDestinationsWordsAndWaits() {
        let answer = report(.retry(after: 30), status: 503, answer: "HTTP 503 busy")
        let verdict = AttemptVerdict.settling(.retry(after: 30), report: answer, attempts: 3, stopping: false, keptIn: nil) { sent }
        XCTAssertEqual(verdict.result, .retry(after: 30, error: "HTTP 503 busy", statusCode: 503))
        XCTAssertEqual(verdict.outcome, .retrying(attempt: 3, reason: "HTTP 503 busy", retryIn: 30))
    }

    func testARetryWhileStoppingIsNotPutOffForTheNextRun() {
        let cut = report(.retry(after: 30), problem: "cancelled")
        let verdict = AttemptVerdict.settling(.retry(after: 30), report: cut, attempts: 1, stopping: true, keptIn: nil) { sent }
        XCTAssertEqual(verdict.result, .retry(after: 0, error: "cancelled", statusCode: nil))
        XCTAssertEqual(verdict.outcome, .interrupted)
    }

    func testARefusalSaysWhereThePhotoWaits() {
        let refused = report(.permanent(reason: "HTTP 413 too large"), status: 413)
        let kept = AttemptVerdict.settling(
            .permanent(reason: "HTTP 413 too large"), report: refused, attempts: 1, stopping: false,
            keptIn: "/spool/failed"
        ) { sent }
        XCTAssertEqual(kept.result, .failed(error: "HTTP 413 too large", statusCode: 413))
        XCTAssertEqual(kept.outcome, .failed(reason: "HTTP 413 too large", keptIn: "/spool/failed"))
    }

    func testAnEarlyAnswerDuringTheDownloadSendsThePhotoAgainWhole() {
        let verdict = CutThroughVerdict(report(.delivered, status: 201), name: "IMG_1.JPG")
        XCTAssertEqual(verdict.decision, .retry(after: 0))
        XCTAssertEqual(verdict.retryDelay, 0)
        XCTAssertEqual(verdict.notice?.contains("answered before the whole photo was sent"), true)
        XCTAssertFalse(verdict.downloadGaveUp)
    }

    func testAFailureOnRelaysSideDuringTheDownloadIsNeverFinal() {
        let local = UploadTransportError(category: .fileUnreadable, message: "read failed")
        let verdict = CutThroughVerdict(report(.permanent(reason: "read failed"), transport: local), name: "IMG_1.JPG")
        XCTAssertEqual(verdict.decision, .retry(after: 0), "the spool's copy is sent next")
        XCTAssertEqual(verdict.notice?.hasPrefix("IMG_1.JPG: the upload during its download failed"), true)
    }

    func testADestinationsRefusalDuringTheDownloadStands() {
        let verdict = CutThroughVerdict(report(.permanent(reason: "HTTP 403"), status: 403), name: "IMG_1.JPG")
        XCTAssertEqual(verdict.decision, .permanent(reason: "HTTP 403"))
        XCTAssertNil(verdict.notice)
    }

    func testADownloadGivenUpUnderTheUploadIsNotTheDestinationsFault() {
        let gaveUp = UploadTransportError(category: .sourceIncomplete, message: "the camera went away")
        let verdict = CutThroughVerdict(report(.retry(after: 20), transport: gaveUp), name: "IMG_1.JPG")
        XCTAssertTrue(verdict.downloadGaveUp)
        XCTAssertEqual(verdict.retryDelay, 0, "sent from the spool as soon as the download is committed")
        XCTAssertNil(verdict.notice)
    }

    func testAServerRetryDuringTheDownloadKeepsItsDelay() {
        let verdict = CutThroughVerdict(report(.retry(after: 20), status: 503), name: "IMG_1.JPG")
        XCTAssertEqual(verdict.retryDelay, 20)
        XCTAssertFalse(verdict.downloadGaveUp)
    }

    /// A gallery that wants a length (411) to a body sent before the photo's size was known:
    /// the photo goes once complete, at once, and it is no failure of the gallery.
    func testALengthRequiredIsNoFailure() {
        let verdict = CutThroughVerdict(report(.retry(after: 0), status: 411), name: "IMG_1.JPG")
        XCTAssertTrue(verdict.lengthRequired)
        XCTAssertEqual(verdict.retryDelay, 0)
        XCTAssertFalse(
            CutThroughVerdict(report(.permanent(reason: "HTTP 411"), status: 411), name: "IMG_1.JPG").lengthRequired,
            "a 411 to a body with a length is the gallery's rule, settled as usual")
    }
}
