import Foundation
import Uploader
import XCTest

final class GalleryReachabilityTests: XCTestCase {
    private let start = Date(timeIntervalSince1970: 1_000_000)
    /// The wait after the n-th failure in a row: 10 s, 20 s, 30 s …, so each step is visible.
    private let delay: (Int) -> TimeInterval = { TimeInterval(10 * ($0 + 1)) }

    private func refused() -> Result<UploadResponse, UploadTransportError> {
        .failure(UploadTransportError(category: .couldNotConnect, message: "Connection refused"))
    }

    func testAReachableGalleryLetsEveryWorkerSend() {
        var gallery = GalleryReachability()
        XCTAssertEqual(gallery.turn(at: start), .send)
        XCTAssertNil(gallery.record(.reachable, probe: false, at: start, delay: delay))
        XCTAssertEqual(gallery.turn(at: start), .send)
    }

    func testOnceUnreachableEveryoneWaitsThenOneWorkerProbes() {
        var gallery = GalleryReachability()
        XCTAssertEqual(
            gallery.record(.unreachable, probe: false, at: start, delay: delay),
            .lost(nextTry: start + 10))
        XCTAssertEqual(gallery.turn(at: start + 5), .wait(until: start + 10))
        XCTAssertEqual(gallery.turn(at: start + 10), .probe)
        XCTAssertEqual(gallery.turn(at: start + 10), .wait(until: nil), "one probe at a time")
        XCTAssertEqual(gallery.turn(at: start + 60), .wait(until: nil), "until the probe ends")
    }

    func testFailedProbesWaitLongerEachTimeAndAnAnswerReopens() {
        var gallery = GalleryReachability()
        _ = gallery.record(.unreachable, probe: false, at: start, delay: delay)
        XCTAssertEqual(gallery.turn(at: start + 10), .probe)
        XCTAssertEqual(
            gallery.record(.unreachable, probe: true, at: start + 10, delay: delay),
            .stillUnreachable(nextTry: start + 30))
        XCTAssertEqual(gallery.turn(at: start + 30), .probe)
        XCTAssertEqual(
            gallery.record(.unreachable, probe: true, at: start + 30, delay: delay),
            .stillUnreachable(nextTry: start + 60))
        XCTAssertEqual(gallery.turn(at: start + 60), .probe)
        XCTAssertEqual(gallery.record(.reachable, probe: true, at: start + 60, delay: delay), .regained)
        XCTAssertTrue(gallery.isReachable)
        XCTAssertEqual(gallery.turn(at: start + 60), .send)
        // A new outage starts again from the first step.
        XCTAssertEqual(
            gallery.record(.unreachable, probe: false, at: start + 70, delay: delay),
            .lost(nextTry: start + 80))
    }

    func testAFailureThatStartedBeforeTheOutageWasSeenDoesNotLengthenTheWait() {
        var gallery = GalleryReachability()
        _ = gallery.record(.unreachable, probe: false, at: start, delay: delay)
        XCTAssertNil(gallery.record(.unreachable, probe: false, at: start + 1, delay: delay))
        XCTAssertEqual(gallery.turn(at: start + 2), .wait(until: start + 10))
    }

    func testAnAnswerToAnyAttemptReopensAtOnce() {
        var gallery = GalleryReachability()
        _ = gallery.record(.unreachable, probe: false, at: start, delay: delay)
        XCTAssertEqual(gallery.record(.reachable, probe: false, at: start + 1, delay: delay), .regained)
        XCTAssertEqual(gallery.turn(at: start + 1), .send)
    }

    func testAProbeThatToldNothingIsFollowedByAnotherAtOnce() {
        var gallery = GalleryReachability()
        _ = gallery.record(.unreachable, probe: false, at: start, delay: delay)
        XCTAssertEqual(gallery.turn(at: start + 10), .probe)
        XCTAssertNil(gallery.record(.unknown, probe: true, at: start + 11, delay: delay))
        XCTAssertEqual(gallery.turn(at: start + 11), .probe)
        // The failure count was kept: the next failed probe waits the second step.
        XCTAssertEqual(
            gallery.record(.unreachable, probe: true, at: start + 11, delay: delay),
            .stillUnreachable(nextTry: start + 31))
    }

    func testEvidenceOfOutcomes() {
        XCTAssertEqual(GalleryReachability.evidence(of: refused()), .unreachable)
        XCTAssertEqual(GalleryReachability.evidence(of: .failure(UploadTransportError(category: .dns, message: "x"))), .unreachable)
        // Any answer, even an error, shows the gallery is there.
        XCTAssertEqual(
            GalleryReachability.evidence(of: .success(UploadResponse(statusCode: 503, retryAfter: nil, bodySummary: ""))),
            .reachable)
        XCTAssertEqual(
            GalleryReachability.evidence(of: .failure(UploadTransportError(category: .connectionLost, message: "x"))),
            .reachable)
        XCTAssertEqual(GalleryReachability.evidence(of: .failure(UploadTransportError(category: .timeout, message: "x"))), .unknown)
        XCTAssertEqual(GalleryReachability.evidence(of: .failure(UploadTransportError(category: .other, message: "x"))), .unknown)
        XCTAssertEqual(
            GalleryReachability.evidence(of: .failure(UploadTransportError(category: .invalidRequest, message: "x"))),
            .unknown)
    }
}
