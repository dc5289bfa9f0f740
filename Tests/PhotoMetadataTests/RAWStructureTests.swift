import PhotoMetadata
import XCTest

/// A RAW is whole when everything its structure points to arrived: cut anywhere, it is not.
final class RAWStructureTests: XCTestCase {
    private func verdict(_ file: [UInt8]) -> RAWStructure.Verdict {
        RAWStructure.verdict(size: Int64(file.count)) { offset, count in
            let start = Int(offset)
            guard start <= file.count else { return [] }
            return Array(file[start..<min(file.count, start + count)])
        }
    }

    /// A TIFF as a RAW body writes one: IFD0 with two strips (their offsets and lengths stored
    /// outside the IFD), a SubIFD with an embedded JPEG, the image data last.
    private func tiff(bigEndian: Bool = false, trailer: [UInt8] = []) -> [UInt8] {
        func u16(_ value: Int) -> [UInt8] {
            bigEndian ? [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] : [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)]
        }
        func u32(_ value: Int) -> [UInt8] {
            let bytes = withUnsafeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian, Array.init)
            return bigEndian ? bytes.reversed() : bytes
        }
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: [UInt8]) -> [UInt8] { u16(tag) + u16(type) + u32(count) + value }
        // Layout: header 8, IFD0 at 8 (4 entries: 2 + 48 + 4 = 54 bytes), arrays at 62, SubIFD at 78,
        // then the JPEG (1,000 bytes) and the two strips (3,000 and 5,000 bytes).
        let subIFD = 78
        let jpeg = 78 + 2 + 24 + 4
        let strip1 = jpeg + 1_000
        let strip2 = strip1 + 3_000
        var file: [UInt8] = (bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]) + u16(42) + u32(8)
        file += u16(4)
        file += entry(0x0100, 3, 1, u16(4000) + [0, 0])
        file += entry(0x0111, 4, 2, u32(62))
        file += entry(0x0117, 4, 2, u32(70))
        file += entry(0x014A, 4, 1, u32(subIFD))
        file += u32(0)
        file += u32(strip1) + u32(strip2) + u32(3_000) + u32(5_000)
        XCTAssertEqual(file.count, subIFD)
        file += u16(2) + entry(0x0201, 4, 1, u32(jpeg)) + entry(0x0202, 4, 1, u32(1_000)) + u32(0)
        XCTAssertEqual(file.count, jpeg)
        file += [UInt8](repeating: 0xAB, count: 9_000)
        return file + trailer
    }

    func testAWholeTIFFRawIsCompleteInEitherByteOrderWhateverFollowsIt() {
        XCTAssertEqual(verdict(tiff()), .complete)
        XCTAssertEqual(verdict(tiff(bigEndian: true)), .complete)
        XCTAssertEqual(verdict(tiff(trailer: [UInt8](repeating: 7, count: 500))), .complete)
    }

    /// Cut anywhere after its first IFD, it is incomplete. Cut inside that IFD (the first 62
    /// bytes here) it cannot be told from a file that only begins like a TIFF: unreadable, and
    /// how its transfer ended decides.
    func testATIFFRawCutAnywhereAfterItsFirstIFDIsIncomplete() {
        for whole in [tiff(), tiff(bigEndian: true)] {
            for length in stride(from: 8, to: whole.count, by: 7) {
                XCTAssertEqual(verdict(Array(whole.prefix(length))), length < 62 ? .unreadable : .incomplete, "cut at \(length)")
            }
            XCTAssertEqual(verdict(Array(whole.dropLast())), .incomplete, "one byte short")
        }
    }

    func testOrfAndRw2MagicNumbersAreTIFF() {
        var orf = tiff()
        orf[2] = 0x52
        orf[3] = 0x4F
        XCTAssertEqual(verdict(orf), .complete)
        var rw2 = tiff()
        rw2[2] = 0x55
        XCTAssertEqual(verdict(Array(rw2.prefix(5_000))), .incomplete)
    }

    func testATIFFHeaderOverRandomBytesIsUnreadableNotCut() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            let file: [UInt8] = [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0] + (0..<20_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
            XCTAssertNotEqual(verdict(file), .complete)
            XCTAssertEqual(verdict(file), .unreadable, "a file that is not a TIFF falls back to how its transfer ended")
        }
    }

    private func box(_ type: String, _ body: Int) -> [UInt8] {
        let size = body + 8
        return [UInt8(size >> 24 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + Array(type.utf8)
            + [UInt8](repeating: 0x11, count: body)
    }

    func testACR3IsCompleteWhenItsBoxesAddUp() {
        let cr3 = box("ftyp", 16) + box("moov", 400) + box("uuid", 100) + box("mdat", 20_000)
        XCTAssertEqual(verdict(cr3), .complete)
        for length in stride(from: 8, to: cr3.count, by: 97) {
            XCTAssertEqual(verdict(Array(cr3.prefix(length))), .incomplete, "cut at \(length)")
        }
        let large: [UInt8] = [0, 0, 0, 1] + Array("mdat".utf8) + [0, 0, 0, 0, 0, 0, 0x10, 0x10] + [UInt8](repeating: 0, count: 4096)
        XCTAssertEqual(verdict(box("ftyp", 16) + large), .complete, "a 64-bit box size")
        XCTAssertEqual(verdict(box("ftyp", 16) + [0, 0, 0, 3] + Array("junk".utf8)), .unreadable, "a box smaller than its header")
    }

    func testARAFIsCompleteWhenItsRegionsArrived() {
        func u32(_ value: Int) -> [UInt8] {
            [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        }
        var raf = Array("FUJIFILMCCD-RAW ".utf8) + [UInt8](repeating: 0x30, count: 68)
        raf += u32(200) + u32(1_000) + u32(1_200) + u32(100) + u32(1_300) + u32(6_000)
        raf += [UInt8](repeating: 0, count: 7_300 - raf.count)
        XCTAssertEqual(verdict(raf), .complete)
        XCTAssertEqual(verdict(Array(raf.prefix(7_000))), .incomplete)
        XCTAssertEqual(verdict(Array(raf.prefix(100))), .incomplete, "cut inside its header")
    }

    /// Mutated files (bytes flipped, cut, grown) give a verdict and never trap: the walker reads
    /// what a stranger on the venue network may upload.
    func testMutatedFilesGiveAVerdictAndNeverTrap() {
        var generator = SystemRandomNumberGenerator()
        let seeds = [tiff(), tiff(bigEndian: true), box("ftyp", 16) + box("moov", 40) + box("mdat", 500)]
        for _ in 0..<3_000 {
            var file = seeds.randomElement(using: &generator)!
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                file[Int.random(in: 0..<min(file.count, 120), using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            if Bool.random(using: &generator) { file = Array(file.prefix(Int.random(in: 0...file.count, using: &generator))) }
            _ = verdict(file)
        }
    }

    func testOtherFilesAreUnreadable() {
        XCTAssertEqual(verdict(Array("hello, this is not a RAW file".utf8)), .unreadable)
        XCTAssertEqual(verdict([0x49, 0x49]), .unreadable)
    }
}
