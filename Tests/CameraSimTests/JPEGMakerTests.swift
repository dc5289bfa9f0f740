import Foundation
import PhotoMetadata
import RelayCore
import TestSupport
import XCTest

@testable import CameraSim

final class JPEGMakerTests: XCTestCase {
    func testMakesAWellFormedBaselineJPEGOfRoughlyTheAskedSize() throws {
        for target in [0, 10_000, 200_000, 1_000_000] {
            var random = SeededRandom(seed: 3)
            let bytes = JPEGMaker.make(width: 64, height: 40, targetSize: target, label: "t", random: &random)
            let markers = try Self.segmentMarkers(bytes)
            XCTAssertEqual(Array(markers.prefix(1)), [0xE0], "JFIF first")
            for required: UInt8 in [0xDB, 0xC0, 0xC4, 0xDA] {
                XCTAssertTrue(markers.contains(required), String(format: "marker FF%02X missing", required))
            }
            XCTAssertEqual(Array(bytes.suffix(2)), [0xFF, 0xD9])
            if target > 2_000 {
                XCTAssertLessThanOrEqual(abs(bytes.count - target), 8, "size \(bytes.count) for target \(target)")
            }
        }
    }

    func testEachPhotoDiffersAndTheSameSeedRepeats() {
        func make(_ index: UInt64) -> [UInt8] {
            var random = SeededRandom.derived(seed: 1, stream: 1, index: index)
            return JPEGMaker.make(width: 32, height: 32, targetSize: 5_000, label: "x", random: &random)
        }
        XCTAssertNotEqual(make(1), make(2))
        XCTAssertEqual(make(5), make(5))
    }

    /// Decodes with libjpeg's djpeg (Debian libjpeg-turbo-progs, installed by scripts/test.sh): the
    /// strongest check that any viewer opens these files.
    func testDecodesWithDjpeg() throws {
        guard let djpeg = Subprocess.which("djpeg") else {
            return XCTFail("djpeg not found: install the Debian package libjpeg-turbo-progs (scripts/test.sh does)")
        }
        let folder = try TestPaths.makeTemporaryDirectory("jpeg")
        defer { try? FileManager.default.removeItem(at: folder) }
        var random = SeededRandom(seed: 11)
        let file = folder.appendingPathComponent("a.jpg")
        try Data(JPEGMaker.make(width: 640, height: 480, targetSize: 150_000, label: "djpeg", random: &random)).write(to: file)
        let result = try Subprocess.run(djpeg, ["-pnm", "-outfile", folder.appendingPathComponent("a.pgm").path, file.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "", "djpeg warned: \(result.stderr)")
        let header = try String(decoding: Data(contentsOf: folder.appendingPathComponent("a.pgm")).prefix(15), as: UTF8.self)
        XCTAssertTrue(header.hasPrefix("P5\n640 480"), header)
    }

    /// What each profile writes at the shutter, as exiftool (a reader nobody here wrote) finds
    /// it, and as relay's identity from the header reads it: Nikon bodies keep their serial and
    /// shutter count in a type-3 maker note of a big-endian EXIF, others write BodySerialNumber.
    func testEachShotCarriesTheEXIFABodyWritesAsExiftoolReadsIt() throws {
        let folder = try TestPaths.makeTemporaryDirectory("exif")
        defer { try? FileManager.default.removeItem(at: folder) }
        for profile in [SimProfile.nikonZStrict, .canonEOS] {
            var options = SimOptions()
            options.profile = profile
            options.initialPhotos = 0
            options.photoSize = 20_000
            let card = try CameraCard(options: options)
            card.shoot(frames: 3)
            let shot = try XCTUnwrap(card.takeNewObjects().last)
            guard case .bytes(let bytes) = shot.content else { return XCTFail("a generated photo") }
            let file = folder.appendingPathComponent("\(profile.rawValue).jpg")
            try Data(bytes).write(to: file)
            let tags = try CameraJPEG.exif(file)
            let identity = PhotoHeaderIdentity(head: bytes)
            XCTAssertEqual(tags["EXIF:Make"] as? String, profile.manufacturer)
            XCTAssertEqual(tags["EXIF:Model"] as? String, profile.model)
            XCTAssertEqual(tags["EXIF:DateTimeOriginal"] as? String, identity.capturedAt)
            XCTAssertEqual((tags["EXIF:SubSecTimeOriginal"]).map { "\($0)" }.map { $0.count == 1 ? "0" + $0 : $0 }, identity.subSeconds)
            let serial = profile == .nikonZStrict ? tags["MakerNotes:SerialNumber"] : tags["EXIF:SerialNumber"]
            XCTAssertEqual(serial.map { "\($0)" }, identity.serial, "\(profile): \(tags)")
            XCTAssertEqual(identity.serial, String(profile.body.serialNumber.drop { $0 == "0" }))
            if profile == .nikonZStrict {
                XCTAssertEqual(tags["MakerNotes:ShutterCount"] as? Int, 3, "the third frame")
                XCTAssertEqual(identity.shutterCount, 3)
            }
            XCTAssertTrue(identity.key.hasPrefix("exif|"), identity.key)
        }
    }

    /// The markers of the segments before the scan, checking each length stays inside the file.
    static func segmentMarkers(_ bytes: [UInt8]) throws -> [UInt8] {
        XCTAssertEqual(Array(bytes.prefix(2)), [0xFF, 0xD8])
        var markers: [UInt8] = []
        var offset = 2
        while offset + 4 <= bytes.count {
            XCTAssertEqual(bytes[offset], 0xFF, "segment must start with FF at \(offset)")
            let marker = bytes[offset + 1]
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            markers.append(marker)
            XCTAssertLessThanOrEqual(offset + 2 + length, bytes.count)
            if marker == 0xDA { break }
            offset += 2 + length
        }
        return markers
    }
}
