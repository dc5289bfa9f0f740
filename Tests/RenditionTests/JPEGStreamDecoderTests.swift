import Foundation
import RelayCore
import TestSupport
import XCTest

@testable import Rendition

/// The decoder fed as a photo arrives: its planes are libjpeg-turbo's own (djpeg), whatever the
/// sampling, scale, pieces, progressive or restart-marker form, and a cut or damaged photo fails
/// with libjpeg's message instead of giving grey.
final class JPEGStreamDecoderTests: XCTestCase {
    private var fixtures: JPEGFixtures!

    override func setUpWithError() throws {
        fixtures = try JPEGFixtures()
    }

    override func tearDown() {
        fixtures = nil
    }

    /// Decodes `bytes` appended in `pieces` (sizes; the rest in one), at `eighths`/8.
    private func decode(_ bytes: [UInt8], eighths: Int, pieces: [Int] = []) throws -> [PixelPlane] {
        let decoder = try JPEGStreamDecoder()
        return try decode(bytes, with: decoder, eighths: eighths, pieces: pieces)
    }

    private func decode(_ bytes: [UInt8], with decoder: JPEGStreamDecoder, eighths: Int, pieces: [Int] = []) throws -> [PixelPlane] {
        var offset = 0
        var sizes = pieces[...]
        func feed() throws -> Bool {
            guard offset < bytes.count else { return false }
            let count = min(sizes.popFirst() ?? bytes.count, bytes.count - offset)
            try bytes[offset..<(offset + count)].withUnsafeBytes { try decoder.append($0) }
            offset += count
            return true
        }
        while try decoder.header() == nil {
            guard try feed() else {
                decoder.endInput()
                _ = try decoder.header()
                break
            }
        }
        let scale = RenditionGeometry.Scale(eighths, 8)
        while try decoder.start(scale: scale) == nil { if !(try feed()) { decoder.endInput() } }
        while !(try decoder.readStrips()) { if !(try feed()) { decoder.endInput() } }
        while !(try decoder.finish()) { if !(try feed()) { decoder.endInput() } }
        return decoder.decodedPlanes()
    }

    private func bytes(_ url: URL) throws -> [UInt8] { [UInt8](try Data(contentsOf: url)) }

    func testLumaIsLibjpegTurbosOwnAtEveryScaleAndSampling() throws {
        let files = [
            "camera 4:2:2": fixtures.camera, "4:2:0": try fixtures.sampled("2x2"), "4:4:4": try fixtures.sampled("1x1"),
            "grey": try fixtures.sampled(nil),
        ]
        for (name, file) in files.sorted(by: { $0.key < $1.key }) {
            let data = try bytes(file)
            for eighths in 1...8 {
                let planes = try decode(data, eighths: eighths)
                let reference = try fixtures.referenceLuma(file, eighths: eighths)
                XCTAssertEqual(planes.count, name == "grey" ? 1 : 3, name)
                XCTAssertEqual(
                    PixelPlaneBytes(width: planes[0].width, height: planes[0].height, pixels: planes[0].pixels), reference,
                    "\(name) at \(eighths)/8")
                for chroma in planes.dropFirst() {
                    // Chroma at the scaled size or half of it, never padded past the image.
                    XCTAssertTrue([planes[0].width, (planes[0].width + 1) / 2].contains(chroma.width), "\(name) \(eighths)/8")
                    XCTAssertTrue([planes[0].height, (planes[0].height + 1) / 2].contains(chroma.height), "\(name) \(eighths)/8")
                }
            }
        }
    }

    /// Chroma too is libjpeg-turbo's own: in a 4:4:4 photo (no upsampling anywhere) the Cb and
    /// Cr planes are Pillow's decoding in YCbCr at the same DCT scale (its "draft" mode).
    func testChromaIsPillowsAtEachScaleOfAFullChromaPhoto() throws {
        let file = try fixtures.sampled("1x1")
        let data = try bytes(file)
        let python = try XCTUnwrap(Subprocess.which("python3"))
        for eighths in [8, 4, 2, 1] {
            let planes = try decode(data, eighths: eighths)
            let script = """
                import sys
                from PIL import Image
                image = Image.open(sys.argv[1])
                image.draft("YCbCr", (int(sys.argv[2]), int(sys.argv[3])))
                for index, plane in enumerate(image.split()):
                    plane.save("%s-%d.pgm" % (sys.argv[4], index))
                """
            let prefix = fixtures.folder.appendingPathComponent("pillow-\(eighths)").path
            // Pillow's draft reduces by the whole factor the requested size fits (1001 // 500 = 2).
            let factor = 8 / eighths
            let made = try Subprocess.run(python, ["-c", script, file.path, "\(1001 / factor)", "\(667 / factor)", prefix])
            XCTAssertEqual(made.status, 0, made.stderr)
            for component in 0..<3 {
                let pillow = try PixelPlaneBytes(pgm: Data(contentsOf: URL(fileURLWithPath: "\(prefix)-\(component).pgm")))
                let ours = planes[component]
                XCTAssertEqual(
                    PixelPlaneBytes(width: ours.width, height: ours.height, pixels: ours.pixels), pillow,
                    "component \(component) at \(eighths)/8")
            }
        }
    }

    func testAPhotoInIrregularPiecesGivesTheSamePlanesAsInOne() throws {
        for file in [fixtures.camera, try fixtures.sampled("2x2")] {
            let data = try bytes(file)
            let whole = try decode(data, eighths: 2)
            var random = SeededRandom(seed: 30)
            let irregular = (0..<4000).map { _ in Int.random(in: 1...4096, using: &random) }
            XCTAssertEqual(try decode(data, eighths: 2, pieces: irregular), whole)
            // Byte by byte through the head (the EXIF segment is skipped across many pieces).
            let head = [Int](repeating: 1, count: 80_000)
            XCTAssertEqual(try decode(data, eighths: 2, pieces: head), whole)
        }
    }

    func testProgressiveAndRestartMarkedFormsDecodeToTheSamePixels() throws {
        let baseline = try bytes(fixtures.camera)
        let whole = try decode(baseline, eighths: 4)
        let progressive = try fixtures.transcoded(fixtures.camera, ["-progressive"], name: "progressive.jpg")
        let restarts = try fixtures.transcoded(fixtures.camera, ["-restart", "1"], name: "restart.jpg")
        let progressiveBytes = try bytes(progressive)
        let decoder = try JPEGStreamDecoder()
        XCTAssertEqual(
            try progressiveBytes.withUnsafeBytes {
                try decoder.append($0)
                return try decoder.header()
            }?.multipleScans, true)
        var random = SeededRandom(seed: 31)
        let pieces = (0..<2000).map { _ in Int.random(in: 1...2048, using: &random) }
        XCTAssertEqual(try decode(progressiveBytes, eighths: 4, pieces: pieces), whole, "progressive")
        XCTAssertEqual(try decode(try bytes(restarts), eighths: 4, pieces: pieces), whole, "restart markers")
    }

    func testACutPhotoFailsWithLibjpegsPrematureEnd() throws {
        let data = try bytes(fixtures.camera)
        XCTAssertThrowsError(try decode(Array(data.prefix(data.count / 2)), eighths: 2)) { error in
            XCTAssertTrue("\(error)".contains("Premature end of JPEG file"), "\(error)")
        }
        // Cut inside the head: the header itself cannot be read.
        XCTAssertThrowsError(try decode(Array(data.prefix(300)), eighths: 2)) { error in
            XCTAssertTrue("\(error)".contains("Premature end of JPEG file"), "\(error)")
        }
    }

    func testDamagedPixelDataFailsInsteadOfShowingGrey() throws {
        let damaged = [UInt8](CameraJPEG.damaged(try Data(contentsOf: fixtures.camera)))
        XCTAssertThrowsError(try decode(damaged, eighths: 2)) { error in
            XCTAssertTrue("\(error)".contains("Corrupt JPEG data"), "\(error)")
        }
    }

    func testWhatIsNotAYCbCrOrGreyJPEGIsRefusedAtTheHeader() throws {
        let cmyk = fixtures.folder.appendingPathComponent("cmyk.jpg")
        let python = try XCTUnwrap(Subprocess.which("python3"))
        let made = try Subprocess.run(
            python, ["-c", "import sys; from PIL import Image; Image.new('CMYK', (64, 48), (0, 128, 0, 0)).save(sys.argv[1])", cmyk.path])
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertThrowsError(try decode(try bytes(cmyk), eighths: 8)) { error in
            XCTAssertTrue("\(error)".contains("CMYK or RGB"), "\(error)")
        }
        XCTAssertThrowsError(try decode(Array("not a photo at all".utf8), eighths: 8)) { error in
            XCTAssertTrue("\(error)".contains("Not a JPEG file"), "\(error)")
        }
    }

    func testAResetMidPhotoStartsCleanAndTheDecoderIsReused() throws {
        let first = try bytes(fixtures.camera)
        let second = try bytes(try fixtures.sampled("2x2"))
        let decoder = try JPEGStreamDecoder()
        try first.prefix(first.count / 2).withUnsafeBytes { try decoder.append($0) }
        XCTAssertNotNil(try decoder.header())
        XCTAssertNotNil(try decoder.start(scale: .init(2, 8)))
        XCTAssertFalse(try decoder.readStrips())
        XCTAssertGreaterThan(decoder.rows(0), 0, "rows are out before the photo is complete")
        XCTAssertLessThan(decoder.rows(0), 167)
        decoder.reset()
        XCTAssertEqual(try decode(second, with: decoder, eighths: 2), try decode(second, eighths: 2))
        // And after a failure.
        decoder.reset()
        XCTAssertThrowsError(try decode(Array(first.prefix(1000)), with: decoder, eighths: 2))
        decoder.reset()
        XCTAssertEqual(try decode(first, with: decoder, eighths: 2), try decode(first, eighths: 2))
    }

    func testRowsComeOutAsTheBytesArriveAndTheBufferStaysSmall() throws {
        let data = try bytes(fixtures.camera)
        let decoder = try JPEGStreamDecoder()
        var rowsSeen: [Int] = []
        var largestBuffer = 0
        var offset = 0
        var started = false
        while offset < data.count {
            let count = min(16_384, data.count - offset)
            try data[offset..<(offset + count)].withUnsafeBytes { try decoder.append($0) }
            offset += count
            largestBuffer = max(largestBuffer, decoder.buffered)
            if !started, try decoder.header() != nil, try decoder.start(scale: .init(8, 8)) != nil { started = true }
            if started {
                _ = try decoder.readStrips()
                rowsSeen.append(decoder.rows(0))
            }
        }
        decoder.endInput()
        XCTAssertTrue(try decoder.readStrips())
        XCTAssertTrue(try decoder.finish())
        XCTAssertEqual(decoder.rows(0), 667)
        // Rows appear steadily, not all at the end.
        let halfway = rowsSeen[rowsSeen.count / 2]
        XCTAssertGreaterThan(halfway, 667 / 4, "\(rowsSeen)")
        XCTAssertLessThan(halfway, 667 * 3 / 4, "\(rowsSeen)")
        // What is kept is at most one piece and an MCU row's worth, not the photo.
        XCTAssertLessThan(largestBuffer, 16_384 * 3, "kept \(largestBuffer) bytes")
    }
}
