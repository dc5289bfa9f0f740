import Foundation
import RelayCore
import S3Inbox
import TestSupport
import Uploader
import XCTest

/// The startup check and the reading of claim writes against real stores: SeaweedFS 4.48 (relay's
/// S3 peer, authentication on) and moto in server mode (AWS's answers), the latter also as the
/// two kinds of store without conditional writes (`scripts/moto_s3.py --conditional-writes`).
final class ConditionalWritesStoreTests: XCTestCase {
    private func inboxConfig(endpoint: String, bucket: String) -> RequestConfig {
        RequestConfig(url: "s3://\(bucket)/field/", options: ["endpoint": .string(endpoint)])
    }

    private func check(_ config: RequestConfig, accessKey: String, secretKey: String) throws(ConditionalWritesError) {
        let environment = ["AWS_ACCESS_KEY_ID": accessKey, "AWS_SECRET_ACCESS_KEY": secretKey]
        try ConditionalWrites.check(config: config, environment: environment, desk: "desk-a")
    }

    func testSeaweedFSPassesAndTheProbeIsDeleted() throws {
        let store = try SeaweedFSProcess()
        defer { store.stop() }
        try store.createBucket("inbox")
        try check(inboxConfig(endpoint: store.endpoint, bucket: "inbox"), accessKey: store.accessKey, secretKey: store.secretKey)
        XCTAssertEqual(try store.objects(in: "inbox").map(\.key), [], "the probe object is deleted")
    }

    func testMotoAsAWSPasses() throws {
        let store = try MotoS3Process(conditionalWrites: .aws)
        defer { store.stop() }
        try check(inboxConfig(endpoint: store.endpoint, bucket: "inbox"), accessKey: store.accessKey, secretKey: store.secretKey)
    }

    func testStoreAnsweringNotImplementedIsRefused() throws {
        let store = try MotoS3Process(conditionalWrites: .notImplemented)
        defer { store.stop() }
        XCTAssertThrowsError(
            try check(inboxConfig(endpoint: store.endpoint, bucket: "inbox"), accessKey: store.accessKey, secretKey: store.secretKey)
        ) { error in
            guard case .notImplemented(_, let said) = error as? ConditionalWritesError else { return XCTFail("\(error)") }
            XCTAssertEqual(said, "NotImplemented, HTTP 501")
            XCTAssertTrue("\(error)".contains("two desks could take the same photo"), "\(error)")
        }
    }

    /// The dangerous store: it takes the second write without a word.
    func testStoreIgnoringConditionsIsRefused() throws {
        let store = try MotoS3Process(conditionalWrites: .ignored)
        defer { store.stop() }
        XCTAssertThrowsError(
            try check(inboxConfig(endpoint: store.endpoint, bucket: "inbox"), accessKey: store.accessKey, secretKey: store.secretKey)
        ) { error in
            guard case .ignoresIfNoneMatch = error as? ConditionalWritesError else { return XCTFail("\(error)") }
            XCTAssertTrue(
                "\(error)".hasPrefix("this store does not refuse a second write of the same key (If-None-Match)"), "\(error)")
        }
    }

    func testWrongCredentialsAreNamedNotMistakenForMissingConditionalWrites() throws {
        let store = try SeaweedFSProcess()
        defer { store.stop() }
        try store.createBucket("inbox")
        XCTAssertThrowsError(
            try check(inboxConfig(endpoint: store.endpoint, bucket: "inbox"), accessKey: store.accessKey, secretKey: "wrong")
        ) { error in
            guard case .refused(_, let step, let said) = error as? ConditionalWritesError else { return XCTFail("\(error)") }
            XCTAssertEqual(step, "first If-None-Match: * PUT")
            XCTAssertEqual(said, "SignatureDoesNotMatch, HTTP 403")
        }
    }

    /// One claim's life on each store through relay's own client, read and decided by the pure
    /// rules: desk A claims, desk B sees A's live claim and loses a claim of its own, B (with a
    /// timeout of 0) takes A's claim over on its ETag, A's renewal on the replaced ETag is lost,
    /// and If-Match on a claim that is gone is lost too (404 on moto, 412 on SeaweedFS).
    func testClaimLifeReadsAlikeOnBothStores() throws {
        let seaweed = try SeaweedFSProcess()
        defer { seaweed.stop() }
        try seaweed.createBucket("inbox")
        let moto = try MotoS3Process()
        defer { moto.stop() }
        for (endpoint, accessKey, secretKey) in [
            (seaweed.endpoint, seaweed.accessKey, seaweed.secretKey), (moto.endpoint, moto.accessKey, moto.secretKey),
        ] {
            let bucket = try S3Bucket(
                config: inboxConfig(endpoint: endpoint, bucket: "inbox"),
                environment: ["AWS_ACCESS_KEY_ID": accessKey, "AWS_SECRET_ACCESS_KEY": secretKey], cancellation: UploadCancellation())
            let photo = InboxClaim.Object(key: "field/ana/IMG_1.jpg", etag: ETag("&#34;0cc175b9c0f1b6a831c399e269772661&#34;"))
            let key = try XCTUnwrap(InboxClaim.key(for: photo.key, prefix: bucket.location.inboxPrefix))
            XCTAssertEqual(key, "field/.relay/claims/ana/IMG_1.jpg.json")
            func lookup() throws -> (ClaimSeen, Date) {
                let read = ClaimLookup.read(bucket.perform(bucket.request("GET", key: key)))
                guard case .seen(let seen, let storeNow) = read else {
                    throw UnexpectedAnswer(text: "\(endpoint): claim not read: \(read)")
                }
                return (seen, storeNow)
            }
            func put(_ claim: InboxClaim, _ condition: WriteCondition, key: String = key) -> ConditionalWriteAnswer {
                let request = bucket.request(
                    "PUT", key: key, headers: [condition.header], body: .inline(claim.encoded()),
                    contentType: "application/json")
                return ConditionalWriteAnswer.read(bucket.perform(request), condition: condition)
            }
            var (seen, storeNow) = try lookup()
            let deskA = ClaimRules(desk: "desk-a").decide(photo, seen: seen, storeNow: storeNow)
            let writeA = try XCTUnwrap(deskA.write, "\(endpoint): \(deskA)")
            XCTAssertEqual(writeA.condition, .absent)
            guard case .ours(let first?) = put(writeA.claim, writeA.condition) else { return XCTFail("\(endpoint): A's claim not ours") }

            (seen, storeNow) = try lookup()
            guard
                case .leave(.held(by: "desk-a", state: .taking, _)) = ClaimRules(desk: "desk-b").decide(
                    photo, seen: seen, storeNow: storeNow)
            else { return XCTFail("\(endpoint): B does not leave A's live claim: \(seen)") }
            var claimB = writeA.claim
            claimB.desk = "desk-b"
            guard case .lost = put(claimB, .absent) else { return XCTFail("\(endpoint): B's claim not lost") }

            // A second later by the store's clock: past a zero timeout and the second its dates may hide.
            let impatient = ClaimRules(desk: "desk-b", timeout: 0).decide(photo, seen: seen, storeNow: storeNow.addingTimeInterval(1))
            guard case .takeOver(let takeover, from: "desk-a", _, let condition) = impatient, condition == .matches(first) else {
                return XCTFail("\(endpoint): \(impatient)")
            }
            guard case .ours(let second?) = put(takeover, condition) else { return XCTFail("\(endpoint): B's takeover not ours") }
            XCTAssertNotEqual(first, second, endpoint)
            guard case .lost = put(writeA.claim, .matches(first)) else {
                return XCTFail("\(endpoint): A's renewal on a replaced ETag not lost")
            }
            (seen, _) = try lookup()
            guard case .claim(let stored, second, _) = seen else { return XCTFail("\(endpoint): \(seen)") }
            XCTAssertEqual(stored.desk, "desk-b", endpoint)

            guard case .lost(let said) = put(takeover, .matches(second), key: key + ".gone") else {
                return XCTFail("\(endpoint): If-Match on a missing claim not lost")
            }
            XCTAssertEqual(said, endpoint == moto.endpoint ? "NoSuchKey, HTTP 404" : "PreconditionFailed, HTTP 412", endpoint)
        }
    }
}

private struct UnexpectedAnswer: Error {
    let text: String
}
