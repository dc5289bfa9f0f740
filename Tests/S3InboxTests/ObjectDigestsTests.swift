import Foundation
import RelayCore
import S3Inbox
import XCTest

/// One read's digests: the whole object's MD5 and SHA-256 and, given its parts' sizes, the
/// SHA-256 of its parts' SHA-256s, however the reads cut across the parts.
final class ObjectDigestsTests: XCTestCase {
    private let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }

    private func sha256(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var digest = SHA256Digest()
        digest.update(Array(bytes))
        return digest.finish()
    }

    private func digests(partSizes: [Int64], reads: Int) -> ObjectDigests {
        var digests = ObjectDigests(partSizes: partSizes)
        var start = 0
        while start < bytes.count {
            let end = min(start + reads, bytes.count)
            bytes[start..<end].withUnsafeBufferPointer { digests.update($0) }
            start = end
        }
        return digests
    }

    func testTheCompositeIsTheSHA256OfThePartsSHA256s() {
        let expected = Data(sha256(sha256(bytes[0..<4_000]) + sha256(bytes[4_000..<8_000]) + sha256(bytes[8_000...])))
        for reads in [1, 999, 4_000, 10_000] {
            let found = digests(partSizes: [4_000, 4_000, 2_000], reads: reads)
            XCTAssertEqual(found.compositeSHA256, expected.base64EncodedString(), "reads of \(reads)")
            XCTAssertEqual(found.sha256Base64, Data(sha256(bytes)).base64EncodedString())
        }
        var md5 = MD5Digest()
        md5.update(bytes)
        XCTAssertEqual(digests(partSizes: [], reads: 512).md5Hex, md5.hex())
    }

    /// Sizes that are not the object's give no composite, rather than a wrong one.
    func testPartSizesThatDoNotFitGiveNoComposite() {
        XCTAssertNil(digests(partSizes: [], reads: 100).compositeSHA256)
        XCTAssertNil(digests(partSizes: [4_000, 4_000], reads: 100).compositeSHA256, "bytes beyond the parts")
        XCTAssertNil(digests(partSizes: [4_000, 8_000], reads: 100).compositeSHA256, "a part not filled")
        XCTAssertNil(digests(partSizes: [0, 10_000], reads: 100).compositeSHA256, "a part of no bytes")
    }
}
