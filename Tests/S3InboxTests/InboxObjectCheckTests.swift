import S3Inbox
import XCTest

/// The verdict on a downloaded inbox object: the listed size, the ETag where it is an MD5, then
/// the JPEG's structure.
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

    func testASizeOtherThanListedIsRefused() {
        let verdict = InboxObjectCheck.judge(key: "a.jpg", etag: ETag(md5), listedSize: 10, size: 9, md5Hex: md5, structure: .complete)
        guard case .refused(let why) = verdict else { return XCTFail("\(verdict)") }
        XCTAssertTrue(why.contains("9 bytes where the listing said 10"), why)
    }
}
