import Foundation
import S3Inbox
import Uploader
import XCTest

/// Every road of the claim rules as plain values: the store's time and the desk's id are given.
final class ClaimDecisionTests: XCTestCase {
    private let rules = ClaimRules(desk: "desk-a", timeout: 600)
    private let now = Date(timeIntervalSince1970: 1_800_000_000)
    private let photo = InboxClaim.Object(key: "inbox/ana/IMG_1.jpg", etag: ETag("\"aaaa\""))
    private let claimETag = ETag("\"c1\"")

    private func claim(
        by desk: String, _ state: InboxClaim.State, etag: String = "aaaa", started: TimeInterval = -700
    ) -> InboxClaim {
        InboxClaim(
            desk: desk, object: InboxClaim.Object(key: photo.key, etag: ETag(etag)), state: state,
            started: now.addingTimeInterval(started), renewed: now.addingTimeInterval(started))
    }

    private func seen(_ claim: InboxClaim, idle: TimeInterval) -> ClaimSeen {
        .claim(claim, etag: claimETag, lastModified: now.addingTimeInterval(-idle))
    }

    private var fresh: InboxClaim {
        InboxClaim(desk: "desk-a", object: photo, state: .taking, started: now, renewed: now)
    }

    func testUnclaimedPhotoIsClaimedIfNoneMatch() {
        let decision = rules.decide(photo, seen: .none, storeNow: now)
        XCTAssertEqual(decision, .claim(fresh))
        XCTAssertEqual(decision.write?.condition, .absent)
        XCTAssertEqual(decision.write?.condition.header, HTTPHeader(name: "If-None-Match", value: "*"))
    }

    func testAnotherDesksLiveClaimIsLeft() {
        let theirs = claim(by: "desk-b", .taking)
        XCTAssertEqual(
            rules.decide(photo, seen: seen(theirs, idle: 599), storeNow: now), .leave(.held(by: "desk-b", state: .taking, idle: 599)))
    }

    /// Stale from the timeout and the second an HTTP date may hide (a claim written at 10.9 reads
    /// 10), by the store's Last-Modified against its Date: the claim's own times (the other
    /// desk's word) do not count.
    func testStaleClaimIsTakenOverIfMatchOnItsETag() {
        let theirs = claim(by: "desk-b", .taking, started: 0)
        XCTAssertEqual(
            rules.decide(photo, seen: seen(theirs, idle: 600), storeNow: now), .leave(.held(by: "desk-b", state: .taking, idle: 600)))
        let decision = rules.decide(photo, seen: seen(theirs, idle: 601), storeNow: now)
        XCTAssertEqual(decision, .takeOver(fresh, from: "desk-b", idle: 601, condition: .matches(claimETag)))
        XCTAssertEqual(decision.write?.condition.header, HTTPHeader(name: "If-Match", value: "\"c1\""))
    }

    func testTimeoutIsTheDesksOwn() {
        let theirs = claim(by: "desk-b", .taking)
        let patient = ClaimRules(desk: "desk-a", timeout: 3600)
        XCTAssertEqual(
            patient.decide(photo, seen: seen(theirs, idle: 600), storeNow: now), .leave(.held(by: "desk-b", state: .taking, idle: 600)))
        XCTAssertEqual(ClaimRules(desk: "x").timeout, 600, "--inbox-claim-timeout defaults to 10 minutes")
        XCTAssertEqual(ClaimRules(desk: "x").renewalInterval, 200, "three renewals in a timeout: one lost leaves two")
    }

    /// A Last-Modified after the store's Date (two front ends of one store) is not a negative age.
    func testClaimFromTheFutureIsLive() {
        let theirs = claim(by: "desk-b", .taking)
        XCTAssertEqual(
            rules.decide(photo, seen: seen(theirs, idle: -30), storeNow: now), .leave(.held(by: "desk-b", state: .taking, idle: 0)))
    }

    /// Its bytes are in that desk's durable spool: taking them over could deliver twice.
    func testSpooledClaimIsNeverTakenOver() {
        let theirs = claim(by: "desk-b", .spooled)
        XCTAssertEqual(
            rules.decide(photo, seen: seen(theirs, idle: 86_400), storeNow: now), .leave(.held(by: "desk-b", state: .spooled, idle: 86_400))
        )
    }

    func testDoneIsLeftWhoeverDidIt() {
        for desk in ["desk-a", "desk-b"] {
            XCTAssertEqual(rules.decide(photo, seen: seen(claim(by: desk, .done), idle: 86_400), storeNow: now), .leave(.done(by: desk)))
        }
    }

    /// A restarted desk goes on with its own claims at once, stale or not, without a write.
    func testOwnClaimIsResumed() {
        for state in [InboxClaim.State.taking, .spooled] {
            for idle in [0.0, 10_000] {
                let ours = claim(by: "desk-a", state)
                let decision = rules.decide(photo, seen: seen(ours, idle: idle), storeNow: now)
                XCTAssertEqual(decision, .resume(ours, etag: claimETag))
                XCTAssertNil(decision.write)
            }
        }
    }

    /// New bytes under a key whose old bytes are done: a new photo, claimed over the done claim.
    func testNewBytesUnderADoneClaimAreANewPhoto() {
        for desk in ["desk-a", "desk-b"] {
            let old = claim(by: desk, .done, etag: "old")
            XCTAssertEqual(
                rules.decide(photo, seen: seen(old, idle: 5), storeNow: now),
                .newBytes(fresh, previous: ETag("old"), condition: .matches(claimETag)))
        }
    }

    func testNewBytesWaitForTheEarlierBytesInDelivery() {
        for desk in ["desk-a", "desk-b"] {
            let old = claim(by: desk, .spooled, etag: "old")
            XCTAssertEqual(
                rules.decide(photo, seen: seen(old, idle: 86_400), storeNow: now),
                .leave(.earlierBytesInDelivery(by: desk, previous: ETag("old"))))
        }
    }

    /// The bytes this desk was downloading were replaced: it claims the new ones.
    func testOwnTakingClaimOnOldBytesMovesToTheNewBytes() {
        let old = claim(by: "desk-a", .taking, etag: "old")
        XCTAssertEqual(
            rules.decide(photo, seen: seen(old, idle: 1), storeNow: now),
            .newBytes(fresh, previous: ETag("old"), condition: .matches(claimETag)))
    }

    func testAnotherDesksClaimOnOldBytesIsLeftUntilStale() {
        let old = claim(by: "desk-b", .taking, etag: "old")
        XCTAssertEqual(rules.decide(photo, seen: seen(old, idle: 10), storeNow: now), .leave(.held(by: "desk-b", state: .taking, idle: 10)))
        XCTAssertEqual(
            rules.decide(photo, seen: seen(old, idle: 601), storeNow: now),
            .takeOver(fresh, from: "desk-b", idle: 601, condition: .matches(claimETag)))
    }

    func testUnreadableClaimIsNeverActedOn() {
        let decision = rules.decide(photo, seen: .unreadable(etag: claimETag, lastModified: now.addingTimeInterval(-86_400)), storeNow: now)
        XCTAssertEqual(decision, .leave(.unreadableClaim))
        XCTAssertNil(decision.write)
    }

    /// The listing's quoting (moto's literal quotes, SeaweedFS's `&#34;`, AWS's `&quot;`) and
    /// a header's all name the same bytes.
    func testETagsCompareWithoutTheirQuotes() {
        let forms = [
            "\"5d41402abc4b2a76b9719d911017c592\"", "&#34;5d41402abc4b2a76b9719d911017c592&#34;",
            "&quot;5d41402abc4b2a76b9719d911017c592&quot;", "5d41402abc4b2a76b9719d911017c592", " W/\"5d41402abc4b2a76b9719d911017c592\"",
        ]
        XCTAssertEqual(Set(forms.map(ETag.init)).count, 1)
        XCTAssertEqual(ETag(forms[1]).quoted, forms[0])
        XCTAssertNotEqual(ETag("\"abc-2\""), ETag("\"abc\""))
        let listed = InboxClaim.Object(key: photo.key, etag: ETag("&#34;aaaa&#34;"))
        XCTAssertEqual(rules.decide(listed, seen: seen(claim(by: "desk-b", .done), idle: 1), storeNow: now), .leave(.done(by: "desk-b")))
    }

    /// The whole grid (state × whose × same or other bytes × idle), held to the promises two
    /// desks rest on: a write over an existing claim always names its ETag; another desk's
    /// spooled or live claim is never written over; done bytes are never taken again; only a
    /// claim relay can read is acted on.
    func testEveryCombinationKeepsThePromises() {
        for state in InboxClaim.State.allCases {
            for desk in ["desk-a", "desk-b"] {
                for etag in ["aaaa", "old"] {
                    for idle in [0.0, 599, 600, 601, 86_400] {
                        let existing = claim(by: desk, state, etag: etag)
                        let decision = rules.decide(photo, seen: seen(existing, idle: idle), storeNow: now)
                        let context = "\(state) by \(desk) on \(etag), idle \(idle): \(decision)"
                        if let write = decision.write {
                            XCTAssertEqual(write.condition, .matches(claimETag), context)
                            XCTAssertEqual(write.claim, fresh, context)
                            XCTAssertFalse(desk == "desk-b" && state == .spooled, context)
                            XCTAssertFalse(desk == "desk-b" && state == .taking && idle < 601, context)
                        }
                        if state == .done && etag == "aaaa" { XCTAssertEqual(decision, .leave(.done(by: desk)), context) }
                        if case .resume = decision { XCTAssertEqual(desk, "desk-a", context) }
                    }
                }
            }
        }
    }
}
