import Foundation
import S3Inbox
import XCTest

final class InboxClaimTests: XCTestCase {
    private let claim = InboxClaim(
        desk: "7f0c", object: InboxClaim.Object(key: "inbox/ana/IMG_1.jpg", etag: ETag("\"0cc175b9\"")), state: .spooled,
        started: Date(timeIntervalSince1970: 1_800_000_000), renewed: Date(timeIntervalSince1970: 1_800_000_200))

    /// The stored form is what another desk (or a person) reads: sorted keys, the ETag bare,
    /// dates in ISO 8601 UTC.
    func testStoredFormIsStableJSON() {
        XCTAssertEqual(
            String(decoding: claim.encoded(), as: UTF8.self),
            #"{"desk":"7f0c","object":{"etag":"0cc175b9","key":"inbox/ana/IMG_1.jpg"},"#
                + #""renewed":"2027-01-15T08:03:20Z","started":"2027-01-15T08:00:00Z","state":"spooled"}"#)
        XCTAssertEqual(InboxClaim(decoding: claim.encoded()), claim)
    }

    func testEveryStateRoundTrips() {
        for state in InboxClaim.State.allCases {
            var changed = claim
            changed.state = state
            XCTAssertEqual(InboxClaim(decoding: changed.encoded())?.state, state)
        }
    }

    func testABodyThatIsNotAClaimIsUnreadable() {
        for body in ["", "{}", "not json", #"{"desk":"a","state":"lost","object":{"key":"k","etag":"e"},"started":"x","renewed":"y"}"#] {
            XCTAssertNil(InboxClaim(decoding: Array(body.utf8)), body)
        }
    }

    /// Inside the prefix (one grant covers both), under `.relay/`, which sorts before photos.
    func testClaimKeyIsInsideThePrefix() {
        XCTAssertEqual(InboxClaim.key(for: "inbox/ana/IMG_1.jpg", prefix: "inbox/"), "inbox/.relay/claims/ana/IMG_1.jpg.json")
        XCTAssertEqual(InboxClaim.key(for: "IMG_1.jpg", prefix: ""), ".relay/claims/IMG_1.jpg.json")
        XCTAssertNil(InboxClaim.key(for: "other/IMG_1.jpg", prefix: "inbox/"), "outside the inbox")
        XCTAssertNil(InboxClaim.key(for: "inbox/.relay/claims/a.jpg.json", prefix: "inbox/"), "relay's own objects are never photos")
        XCTAssertNil(InboxClaim.key(for: "inbox/", prefix: "inbox/"))
    }
}
