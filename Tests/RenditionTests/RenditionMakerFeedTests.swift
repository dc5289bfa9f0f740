import Foundation
import RelayCore
import TestSupport
import XCTest

@testable import Rendition

/// A rendition made from a photo fed as it arrives is the one made from the finished file,
/// byte for byte; a rewound photo starts again; a cut one goes as the original with libjpeg's
/// reason.
final class RenditionMakerFeedTests: XCTestCase {
    private var fixtures: JPEGFixtures!
    private let spec = RenditionSpec(maxEdge: 400, quality: 85, stripGPS: true)

    override func setUpWithError() throws {
        fixtures = try JPEGFixtures()
    }

    override func tearDown() {
        fixtures = nil
    }

    private func output(_ name: String) -> URL { fixtures.folder.appendingPathComponent(name) }

    /// Feeds `photo` in `pieces` (then the rest), after `prefix` of it was fed and rewound.
    private func feedAndFinish(
        _ maker: RenditionMaker, _ photo: URL, pieces: [Int], rewoundAfter prefix: Int? = nil, into name: String
    ) throws -> RenditionMaker.Outcome {
        let bytes = [UInt8](try Data(contentsOf: photo))
        let fd = open(photo.path, O_RDONLY)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        if let prefix {
            maker.begin(destination: output(name))
            _ = bytes.prefix(prefix).withUnsafeBytes { maker.feed($0) }
        }
        maker.begin(destination: output(name))
        var offset = 0
        var sizes = pieces[...]
        while offset < bytes.count {
            let count = min(sizes.popFirst() ?? bytes.count, bytes.count - offset)
            let progress = bytes[offset..<(offset + count)].withUnsafeBytes { maker.feed($0) }
            offset += count
            if progress == .hasEnough { break }
        }
        return try maker.finish(photo: fd, name: photo.path)
    }

    func testPiecesAndRewindsGiveTheRenditionOfTheFinishedFile() throws {
        let maker = try RenditionMaker(spec: spec)
        let whole = try maker.make(source: fixtures.camera, destination: output("whole.jpg"))
        guard case .made(_, 400, 267, _) = whole else { return XCTFail("\(whole)") }
        let expected = try Data(contentsOf: output("whole.jpg"))
        var random = SeededRandom(seed: 32)
        let pieces = (0..<3000).map { _ in Int.random(in: 1...4096, using: &random) }
        XCTAssertEqual(try feedAndFinish(maker, fixtures.camera, pieces: pieces, into: "pieces.jpg"), whole)
        XCTAssertEqual(try Data(contentsOf: output("pieces.jpg")), expected, "fed in pieces")
        let rewound = try feedAndFinish(maker, fixtures.camera, pieces: pieces, rewoundAfter: expected.count / 3, into: "rewound.jpg")
        XCTAssertEqual(rewound, whole)
        XCTAssertEqual(try Data(contentsOf: output("rewound.jpg")), expected, "rewound a third of the way")
    }

    func testAProgressivePhotoGivesTheSameRendition() throws {
        let maker = try RenditionMaker(spec: spec)
        let progressive = try fixtures.transcoded(fixtures.camera, ["-progressive"], name: "progressive.jpg")
        XCTAssertEqual(
            try maker.make(source: fixtures.camera, destination: output("baseline-r.jpg")),
            try feedAndFinish(maker, progressive, pieces: [Int](repeating: 777, count: 5000), into: "progressive-r.jpg"))
        XCTAssertEqual(try Data(contentsOf: output("progressive-r.jpg")), try Data(contentsOf: output("baseline-r.jpg")))
    }

    func testACutPhotoGoesAsTheOriginalWithLibjpegsReason() throws {
        let maker = try RenditionMaker(spec: spec)
        let whole = try Data(contentsOf: fixtures.camera)
        let cut = output("cut.jpg")
        try whole.prefix(whole.count * 2 / 3).write(to: cut)
        let outcome = try feedAndFinish(maker, cut, pieces: [Int](repeating: 65_536, count: 100), into: "cut-r.jpg")
        XCTAssertEqual(outcome, .original(reason: "the photo could not be decoded (Premature end of JPEG file)"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: output("cut-r.jpg").path), "no rendition written")
        // The maker goes on with the next photo.
        guard case .made = try maker.make(source: fixtures.camera, destination: output("after.jpg")) else { return XCTFail() }
    }

    /// The rendition's shrinking starts in the decoder (a DCT scale, as TurboJPEG did and as
    /// libvips' shrink-on-load does), and it costs some likeness to a Lanczos shrink of the whole
    /// photo (Pillow), measured here before any encoding: from the whole decoded photo relay's
    /// resampler is above 0.98 SSIM, from the DCT scale 0.89–0.98 on these photos (0.9 at
    /// 1/2 and 1/4 on fine noise and thin lines). After encoding at quality 85 the bench finds
    /// the rendition as close as the reference itself saved at 85.
    func testDecodingAtADCTScaleStaysCloseToShrinkingTheWholePhoto() throws {
        let scene = fixtures.folder.appendingPathComponent("scene.jpg")
        let drawing = """
            import sys
            from PIL import Image, ImageDraw
            w, h = 1001, 667
            image = Image.new("RGB", (w, h))
            pixels = image.load()
            for y in range(h):
                for x in range(w):
                    pixels[x, y] = (x * 255 // w, y * 255 // h, (x + y) * 255 // (w + h))
            draw = ImageDraw.Draw(image)
            for i in range(0, w, 37):
                draw.line([(i, 0), (w - i, h)], fill=(255, 255, 255), width=2)
            for i in range(12):
                draw.ellipse([60 * i, 40 * i, 60 * i + 90, 40 * i + 60], outline=(0, 0, 0), width=3)
                draw.text((80 * i + 5, 600 - 30 * i), "relay %d" % i, fill=(20, 20, 20))
            image.save(sys.argv[1], quality=92)
            """
        try python(drawing, [scene.path])
        let photos = [fixtures.camera, scene]
        let edges = [240, 500, 800]
        let targets = try edges.map { try XCTUnwrap(RenditionGeometry.target(width: 1001, height: 667, maxEdge: $0)) }
        let references = try lanczosLuma(photos.flatMap { photo in targets.map { (photo, $0) } })
        for (p, photo) in photos.enumerated() {
            let data = [UInt8](try Data(contentsOf: photo))
            for (e, edge) in edges.enumerated() {
                let target = targets[e]
                let scale = RenditionGeometry.decodeScale(width: 1001, height: 667, target: target, scales: RenditionPlan.scales)
                XCTAssertLessThan(scale.numerator, scale.denominator, "decoded below full size for \(edge)")
                let reference = references[p * edges.count + e]
                let scaled = try luma(data, scale, to: target)
                let full = try luma(data, .init(1, 1), to: target)
                let fromScaled = structuralSimilarity(scaled.pixels, reference.pixels, width: target.width, height: target.height)
                let fromFull = structuralSimilarity(full.pixels, reference.pixels, width: target.width, height: target.height)
                let case_ = "\(photo.lastPathComponent) to \(edge) px from \(scale.numerator)/\(scale.denominator)"
                XCTAssertGreaterThan(fromFull, 0.98, "the resampler itself, \(case_)")
                XCTAssertGreaterThan(fromScaled, 0.85, "\(case_) (from the whole photo: \(fromFull))")
            }
        }
    }

    private func luma(_ data: [UInt8], _ scale: RenditionGeometry.Scale, to target: (width: Int, height: Int)) throws -> PixelPlane {
        let decoder = try JPEGStreamDecoder()
        try data.withUnsafeBytes { try decoder.append($0) }
        decoder.endInput()
        _ = try decoder.header()
        _ = try decoder.start(scale: scale)
        XCTAssertTrue(try decoder.readStrips())
        return PlaneResampler.resize(decoder.decodedPlanes()[0], width: target.width, height: target.height)
    }

    /// Pillow's whole decoding of `photo`, its luma shrunk to `target` with Lanczos.
    /// Pillow's Lanczos reduction of each photo's luma to its target, in one Python (a Pillow
    /// import per picture was most of this test).
    private func lanczosLuma(_ cases: [(photo: URL, target: (width: Int, height: Int))]) throws -> [PixelPlaneBytes] {
        let pgms = cases.indices.map { fixtures.folder.appendingPathComponent("lanczos-\($0).pgm") }
        let script = """
            import sys
            from PIL import Image
            args = sys.argv[1:]
            for i in range(0, len(args), 4):
                image = Image.open(args[i]).convert("YCbCr").split()[0]
                image.resize((int(args[i + 2]), int(args[i + 3])), Image.LANCZOS).save(args[i + 1])
            """
        try python(
            script, zip(cases, pgms).flatMap { [$0.photo.path, $1.path, "\($0.target.width)", "\($0.target.height)"] })
        return try pgms.map { try PixelPlaneBytes(pgm: Data(contentsOf: $0)) }
    }

    private func python(_ script: String, _ arguments: [String]) throws {
        let result = try Subprocess.run(try XCTUnwrap(Subprocess.which("python3")), ["-c", script] + arguments, timeout: 60)
        XCTAssertEqual(result.status, 0, result.stderr)
    }
}
