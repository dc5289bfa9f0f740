import FTPWire
import XCTest

/// A JPEG is whole when its image is, whatever follows it; a JPEG cut anywhere before the image's
/// end is not; a file that is not a JPEG structure is left to another check.
final class JPEGStructureTests: XCTestCase {
    private static func segment(_ marker: UInt8, _ body: [UInt8]) -> [UInt8] {
        [0xFF, marker, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
    }

    /// A baseline image, or a progressive one with a second table and scan: an EXIF segment with a
    /// thumbnail (its own FF D8 … FF D9) inside, tables, a frame, and entropy-coded data with a
    /// stuffed FF 00, a restart marker and fill bytes.
    static func image(progressive: Bool = false) -> [UInt8] {
        let thumbnail: [UInt8] = [0xFF, 0xD8, 0xFF, 0xDB, 0x00, 0x03, 0x01, 0xFF, 0xD9]
        let scan = segment(0xDA, [0x01, 0x01, 0x00, 0x00, 0x3F, 0x00])
        let data: [UInt8] = [0x12, 0x34, 0xFF, 0x00, 0x56, 0xFF, 0xD3, 0x78, 0xFF, 0xFF, 0x00, 0x9A]
        var bytes: [UInt8] = [0xFF, 0xD8]
        bytes += segment(0xE1, Array("Exif\0\0".utf8) + thumbnail)
        bytes += segment(0xDB, [0x00] + [UInt8](repeating: 1, count: 64))
        bytes += segment(progressive ? 0xC2 : 0xC0, [0x08, 0x00, 0x08, 0x00, 0x08, 0x01, 0x01, 0x11, 0x00])
        bytes += segment(0xC4, [0x00] + [UInt8](repeating: 0, count: 16))
        bytes += scan + data
        if progressive { bytes += segment(0xC4, [0x10] + [UInt8](repeating: 0, count: 16)) + scan + data.reversed().filter { $0 != 0xFF } }
        return bytes + [0xFF, 0xD9]
    }

    func testAWholeImageIsCompleteWhateverFollowsIt() {
        var generator = SystemRandomNumberGenerator()
        let random = (0..<20_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let samsung = Array("SEFH".utf8) + [0x01, 0x00, 0x00, 0x00, 0xFF, 0xD8, 0x00] + Array("SEFT".utf8)
        for image in [Self.image(), Self.image(progressive: true)] {
            XCTAssertEqual(JPEGStructure.verdict(of: image), .complete)
            for trailer in [random, samsung, [UInt8](repeating: 0, count: 4096)] {
                XCTAssertEqual(JPEGStructure.verdict(of: image + trailer), .complete, "a trailer of \(trailer.count) bytes")
            }
        }
    }

    func testAnImageCutAnywhereIsIncomplete() {
        for image in [Self.image(), Self.image(progressive: true)] {
            for length in 0..<image.count {
                XCTAssertEqual(JPEGStructure.verdict(of: Array(image.prefix(length))), .incomplete, "cut at \(length) of \(image.count)")
            }
        }
    }

    func testPiecesOfAnySizeGiveTheSameVerdict() {
        let image = Self.image(progressive: true) + Array("trailer".utf8)
        for size in [1, 2, 3, 7, 64] {
            var structure = JPEGStructure()
            var start = 0
            while start < image.count {
                let piece = Array(image[start..<min(image.count, start + size)])
                piece.withUnsafeBytes { structure.feed($0) }
                start += size
            }
            XCTAssertEqual(structure.verdict, .complete, "pieces of \(size)")
        }
    }

    func testWhatIsNotAJPEGStructureIsUnreadable() {
        XCTAssertEqual(JPEGStructure.verdict(of: [0x89, 0x50, 0x4E, 0x47]), .unreadable, "a PNG")
        XCTAssertEqual(
            JPEGStructure.verdict(of: [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x12, 0x34, 0x56, 0xFF, 0xD9]), .unreadable,
            "filler where a marker belongs")
        XCTAssertEqual(JPEGStructure.verdict(of: [0xFF, 0xD8, 0xFF, 0xD9]), .unreadable, "an end before any frame and scan")
        XCTAssertEqual(JPEGStructure.verdict(of: [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01]), .unreadable, "a length shorter than itself")
        XCTAssertEqual(JPEGStructure.verdict(of: [0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02]), .unreadable, "a scan before the frame")
    }
}
