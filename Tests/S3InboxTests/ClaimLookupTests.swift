import Foundation
import S3Inbox
import Uploader
import XCTest

/// A claim's GET as the stores answer it, read into what the rules take.
final class ClaimLookupTests: XCTestCase {
    private let claim = InboxClaim(
        desk: "desk-b", object: InboxClaim.Object(key: "inbox/a.jpg", etag: ETag("aaaa")), state: .taking,
        started: Date(timeIntervalSince1970: 1_800_000_000), renewed: Date(timeIntervalSince1970: 1_800_000_000))
    /// 2027-01-15 08:00:00 and 08:10:00 UTC.
    private let modified = "Fri, 15 Jan 2027 08:00:00 GMT"
    private let date = "Fri, 15 Jan 2027 08:10:00 GMT"

    private func answer(_ status: Int, body: [UInt8] = [], code: String? = nil, headers: [String: String]) -> Result<
        UploadResponse, UploadTransportError
    > {
        .success(
            UploadResponse(
                statusCode: status, bodySummary: code.map { "<Error><Code>\($0)</Code></Error>" } ?? "", body: body,
                headers: headers.sorted { $0.key < $1.key }.map { HTTPHeader(name: $0.key, value: $0.value) }))
    }

    func testClaimIsReadWithTheStoresTimes() {
        let lookup = ClaimLookup.read(
            answer(200, body: claim.encoded(), headers: ["ETag": "\"c1\"", "Last-Modified": modified, "Date": date]))
        XCTAssertEqual(
            lookup,
            .seen(
                .claim(claim, etag: ETag("c1"), lastModified: Date(timeIntervalSince1970: 1_800_000_000)),
                storeNow: Date(timeIntervalSince1970: 1_800_000_600)))
        guard case .seen(let seen, let storeNow) = lookup else { return XCTFail("\(lookup)") }
        XCTAssertEqual(
            ClaimRules(desk: "desk-a", timeout: 599).decide(claim.object, seen: seen, storeNow: storeNow),
            .takeOver(
                InboxClaim(desk: "desk-a", object: claim.object, state: .taking, started: storeNow, renewed: storeNow),
                from: "desk-b", idle: 600, condition: .matches(ETag("c1"))),
            "ten minutes by the store's clock (a second past the timeout), whatever the desks' clocks say")
    }

    func testBodyThatIsNotAClaimIsUnreadable() {
        XCTAssertEqual(
            ClaimLookup.read(answer(200, body: Array("hello".utf8), headers: ["ETag": "c1", "Last-Modified": modified, "Date": date])),
            .seen(
                .unreadable(etag: ETag("c1"), lastModified: Date(timeIntervalSince1970: 1_800_000_000)),
                storeNow: Date(timeIntervalSince1970: 1_800_000_600)))
    }

    func testNoClaimIsSeenWithTheStoresTime() {
        XCTAssertEqual(
            ClaimLookup.read(answer(404, code: "NoSuchKey", headers: ["Date": date])),
            .seen(.none, storeNow: Date(timeIntervalSince1970: 1_800_000_600)))
    }

    /// Without the store's times there is nothing to judge staleness by: never the desk's clock.
    func testMissingTimesAreAskedAgain() {
        for headers in [
            ["ETag": "c1", "Last-Modified": modified], ["ETag": "c1", "Date": date], ["Last-Modified": modified, "Date": date],
        ] {
            guard case .retryLater = ClaimLookup.read(answer(200, body: claim.encoded(), headers: headers)) else {
                return XCTFail("\(headers)")
            }
        }
        guard case .retryLater = ClaimLookup.read(answer(404, code: "NoSuchKey", headers: [:])) else { return XCTFail("404 without Date") }
    }

    func testFailuresAndRefusals() {
        XCTAssertEqual(ClaimLookup.read(answer(503, code: "SlowDown", headers: [:])), .retryLater(said: "SlowDown, HTTP 503"))
        XCTAssertEqual(
            ClaimLookup.read(.failure(UploadTransportError(category: .timeout, message: "timed out"))), .retryLater(said: "timed out"))
        XCTAssertEqual(
            ClaimLookup.read(answer(404, code: "NoSuchBucket", headers: ["Date": date])), .refused(said: "NoSuchBucket, HTTP 404"))
        XCTAssertEqual(
            ClaimLookup.read(answer(403, code: "AccessDenied", headers: ["Date": date])), .refused(said: "AccessDenied, HTTP 403"))
    }
}
