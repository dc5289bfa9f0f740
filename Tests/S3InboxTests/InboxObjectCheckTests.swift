import Foundation
import S3Inbox
import XCTest

/// The verdict on a downloaded inbox object: the listed size, the SHA-256 checksum, the ETag where
/// it is an MD5, then the JPEG's structure.
final class InboxObjectCheckTests: XCTestCase {
    private let md5 = "0cc175b9c0f1b6a831c399e269772661"

    func testAWholeJPEGMatchingItsMD5ETagIsWhole() {
        XCTAssertEqual(
            InboxObjectCheck.judge(key: "a.jpg", etag: ETag(md5), listedSize: 10, size: 10, md5Hex: md5, structure: .complete), .whole)
    }

    func testBytesNotMatchingAnMD5ETagAreRefused() {
        let verdict = InboxObjectCheck.judge(
            key: "a.jpg", etag: ETag(md5), listedSize: 10, size: 10, md5Hex: String(repeating: "0", count: 32), structure: .complete)
        guard case .refused(let why) = verdict else { return XCTFail("\(verdict)") }
        XCTAssertTrue(why.contains("does not match its ETag"), why)
    }

    /// A multipart upload's ETag is no MD5 of the bytes: the structure alone judges.
    func testAMultipartETagIsNotComparedAsAnMD5() {
        XCTAssertFalse(InboxObjectCheck.isMD5(ETag("\"\(md5)-2\"")))
        XCTAssertTrue(InboxObjectCheck.isMD5(ETag("&#34;\(md5)&#34;")))
        XCTAssertEqual(
            InboxObjectCheck.judge(key: "a.jpg", etag: ETag("\(md5)-2"), listedSize: 10, size: 10, md5Hex: "ff", structure: .complete),
            .whole)
    }

    func testACutShortJPEGIsRefusedEvenWithAMatchingETag() {
        let verdict = InboxObjectCheck.judge(key: "a.jpg", etag: ETag(md5), listedSize: 10, size: 10, md5Hex: md5, structure: .incomplete)
        XCTAssertEqual(verdict, .refused("a.jpg is cut short: its JPEG image does not end; upload it again whole"))
    }

    /// `x-amz-checksum-sha256` of the whole object is checked first, whether the ETag is an MD5
    /// or not (SSE-KMS).
    func testBytesNotMatchingTheirSHA256ChecksumAreRefused() {
        let sha256 = Data(repeating: 7, count: 32).base64EncodedString()
        let other = Data(repeating: 8, count: 32).base64EncodedString()
        let kms = ETag(String(repeating: "z", count: 32))
        XCTAssertEqual(
            InboxObjectCheck.judge(
                key: "a.jpg", etag: kms, listedSize: 10, size: 10, md5Hex: "ff", checksum: sha256, sha256Base64: sha256,
                structure: .complete), .whole)
        for etag in [kms, ETag(md5)] {
            let verdict = InboxObjectCheck.judge(
                key: "a.jpg", etag: etag, listedSize: 10, size: 10, md5Hex: md5, checksum: sha256, sha256Base64: other,
                structure: .complete)
            XCTAssertEqual(
                verdict,
                .refused(
                    "a.jpg does not match its SHA-256 checksum (got \(other), the store has \(sha256)): the bytes were damaged on the way"))
        }
        XCTAssertEqual(InboxObjectCheck.basis(etag: kms, checksum: sha256), .sha256)
    }

    /// A multipart upload's checksum is of its parts' checksums: `…-N` (SeaweedFS, AWS) or, from
    /// moto, a plain base64 digest; its ETag `…-N` says which it is. Not compared; a photo
    /// without a checksum is checked as before.
    func testACompositeOrMissingChecksumFallsBackToTheETag() {
        let digest = Data(repeating: 7, count: 32).base64EncodedString()
        for checksum in [digest + "-2", digest] {
            XCTAssertNil(InboxObjectCheck.wholeSHA256(checksum, etag: ETag("\(md5)-2")))
            XCTAssertEqual(
                InboxObjectCheck.judge(
                    key: "a.jpg", etag: ETag("\(md5)-2"), listedSize: 10, size: 10, md5Hex: "ff", checksum: checksum,
                    sha256Base64: "x", structure: .complete), .whole)
            XCTAssertEqual(InboxObjectCheck.basis(etag: ETag("\(md5)-2"), checksum: checksum), .structureOnly)
        }
        let composite = digest + "-2"
        XCTAssertNil(InboxObjectCheck.wholeSHA256(composite, etag: ETag(md5)))
        XCTAssertFalse(InboxObjectCheck.isMultipart(ETag(md5)))
        XCTAssertFalse(InboxObjectCheck.isMultipart(ETag("abc-")))
        XCTAssertEqual(InboxObjectCheck.basis(etag: ETag("\(md5)-2"), checksum: nil), .structureOnly)
        XCTAssertEqual(InboxObjectCheck.basis(etag: ETag(md5), checksum: composite), .md5ETag)
        let verdict = InboxObjectCheck.judge(
            key: "a.jpg", etag: ETag(md5), listedSize: 10, size: 10, md5Hex: "00", checksum: nil, sha256Base64: "x", structure: .complete)
        guard case .refused(let why) = verdict else { return XCTFail("\(verdict)") }
        XCTAssertTrue(why.contains("does not match its ETag"), why)
    }

    /// With its parts' sizes known, a multipart upload's checksum is checked against the SHA-256
    /// of the parts' SHA-256s, with or without its `-N`.
    func testAMultipartChecksumIsCheckedWhenThePartsAreKnown() {
        let composite = Data(repeating: 7, count: 32).base64EncodedString()
        let other = Data(repeating: 8, count: 32).base64EncodedString()
        let etag = ETag("\(md5)-2")
        for checksum in [composite + "-2", composite] {
            XCTAssertEqual(InboxObjectCheck.basis(etag: etag, checksum: checksum, partsKnown: true), .compositeSHA256)
            XCTAssertEqual(
                InboxObjectCheck.judge(
                    key: "a.jpg", etag: etag, listedSize: 10, size: 10, md5Hex: "ff", checksum: checksum, sha256Base64: other,
                    composite: composite, structure: .complete), .whole)
            XCTAssertEqual(
                InboxObjectCheck.judge(
                    key: "a.jpg", etag: etag, listedSize: 10, size: 10, md5Hex: "ff", checksum: checksum, sha256Base64: composite,
                    composite: other, structure: .complete),
                .refused(
                    "a.jpg does not match its multipart SHA-256 checksum (got \(other), the store has \(checksum)): "
                        + "the bytes were damaged on the way"))
        }
        XCTAssertNil(InboxObjectCheck.compositeSHA256(composite, etag: ETag(md5)), "not a multipart upload")
        XCTAssertEqual(InboxObjectCheck.basis(etag: etag, checksum: composite + "-2", partsKnown: false), .structureOnly)
    }

    func testASizeOtherThanListedIsRefused() {
        let verdict = InboxObjectCheck.judge(key: "a.jpg", etag: ETag(md5), listedSize: 10, size: 9, md5Hex: md5, structure: .complete)
        guard case .refused(let why) = verdict else { return XCTFail("\(verdict)") }
        XCTAssertTrue(why.contains("9 bytes where the listing said 10"), why)
    }
}
