import Foundation
import XCTest

@testable import Stamp

/// A Multi-Picture segment's image offsets move with what the stamp changed after it.
final class MPFOffsetsTests: XCTestCase {
    /// "MPF\0", a little-endian TIFF header, one IFD with MPEntry (two 16-byte entries: the
    /// primary image at offset 0, a preview at 5000).
    private func mpf() -> [UInt8] {
        func le(_ value: Int, _ size: Int) -> [UInt8] { (0..<size).map { UInt8((value >> (8 * $0)) & 0xFF) } }
        let entries =
            le(0x2003_0000, 4) + le(900_000, 4) + le(0, 4) + le(0, 4) + le(0x0001_0000, 4) + le(30_000, 4) + le(5_000, 4)
            + le(0, 4)
        let ifd = le(1, 2) + le(0xB002, 2) + le(7, 2) + le(32, 4) + le(26, 4) + le(0, 4)
        return Array("MPF\0".utf8) + Array("II".utf8) + le(42, 2) + le(8, 4) + ifd + entries
    }

    func testTheSecondaryImagesMoveAndThePrimaryStays() {
        var body = mpf()
        XCTAssertTrue(MPFOffsets.shift(&body, by: 1_234))
        func offset(at: Int) -> Int {
            var value = 0
            for byte in 0..<4 { value |= Int(body[at + byte]) << (8 * byte) }
            return value
        }
        let first = 4 + 26 + 8
        XCTAssertEqual([offset(at: first), offset(at: first + 16)], [0, 6_234])
        var broken = Array(body.prefix(12))
        XCTAssertFalse(MPFOffsets.shift(&broken, by: 10), "unreadable: left as it was")
    }
}
