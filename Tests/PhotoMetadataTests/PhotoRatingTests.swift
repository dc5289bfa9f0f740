import Foundation
import PhotoMetadata
import TestSupport
import Testing

/// Ratings as a third-party tool writes them into a camera-like photo that has its own XMP
/// packet already (exiftool: XMP `xmp:Rating`, EXIF IFD0 0x4746), read back by relay; a photo
/// with none has none.
@Suite struct PhotoRatingTests {
    let folder: URL

    init() throws {
        folder = try TestPaths.makeTemporaryDirectory("rating")
    }

    private func photo(_ name: String, _ tags: [String]) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try CameraJPEG.write(to: url, .init(width: 320, height: 240, xmp: true, seed: 3))
        if !tags.isEmpty {
            let exiftool = try #require(Subprocess.which("exiftool"), "exiftool (libimage-exiftool-perl) is a test dependency")
            let result = try Subprocess.run(exiftool, ["-q", "-overwrite_original"] + tags + [url.path])
            #expect(result.status == 0, "\(result.stderr)")
        }
        return url
    }

    @Test func xmpAndExifRatingsAreRead() throws {
        #expect(PhotoRating.read(file: try photo("xmp.jpg", ["-XMP-xmp:Rating=3"])) == 3)
        #expect(PhotoRating.read(file: try photo("rejected.jpg", ["-XMP-xmp:Rating=-1"])) == -1)
        #expect(PhotoRating.read(file: try photo("exif.jpg", ["-EXIF:Rating=4"])) == 4)
        #expect(PhotoRating.read(file: try photo("both.jpg", ["-EXIF:Rating=1", "-XMP-xmp:Rating=5"])) == 5, "XMP wins")
        #expect(PhotoRating.read(file: try photo("none.jpg", [])) == nil)
        #expect(PhotoRating.read(file: folder.appendingPathComponent("missing.jpg")) == nil)
    }

    @Test func anElementFormAndBrokenPacketsAreReadSafely() {
        func jpeg(_ xmp: String) -> [UInt8] {
            let body = Array("http://ns.adobe.com/xap/1.0/\0".utf8) + Array(xmp.utf8)
            return [0xFF, 0xD8] + JPEGSegments.segment(0xE1, body: body) + [0xFF, 0xDA, 0x00, 0x02]
        }
        let element =
            #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">"#
            + #"<rdf:Description xmlns:xmp="http://ns.adobe.com/xap/1.0/"><xmp:Rating>2</xmp:Rating></rdf:Description>"#
            + "</rdf:RDF></x:xmpmeta>"
        #expect(PhotoRating.read(head: jpeg(element)) == 2)
        #expect(PhotoRating.read(head: jpeg("<x:xmpmeta><unclosed")) == nil)
        #expect(PhotoRating.read(head: jpeg(element.replacingOccurrences(of: ">2<", with: ">9<"))) == nil, "out of range")
        #expect(PhotoRating.read(head: [0xFF, 0xD8, 0xFF]) == nil)
    }

    /// Sony's and Fujifilm's maker-note ratings, in notes laid out as exiftool's MakerNotes.pm
    /// reads them; exiftool reading the same rating from the same file is the check that the
    /// layout is the vendors'.
    @Test func sonyAndFujifilmMakerNoteRatingsAreRead() throws {
        let exiftool = try #require(Subprocess.which("exiftool"), "exiftool (libimage-exiftool-perl) is a test dependency")
        func le(_ value: Int, _ size: Int) -> [UInt8] { (0..<size).map { UInt8((value >> (8 * $0)) & 0xFF) } }
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: Int) -> [UInt8] {
            le(tag, 2) + le(type, 2) + le(count, 4) + le(value, 4)
        }
        /// IFD0 (the EXIF pointer) at 8, the EXIF directory (the maker note) at 26, the note at 44.
        func exif(note: [UInt8]) -> [UInt8] {
            let tiff: [UInt8] =
                Array("II".utf8) + le(42, 2) + le(8, 4) + le(1, 2) + entry(0x8769, 4, 1, 26) + le(0, 4)
                + le(1, 2) + entry(0x927C, 7, note.count, 44) + le(0, 4) + note
            return JPEGSegments.segment(0xE1, body: Array("Exif\0\0".utf8) + tiff)
        }
        let sony = Array("SONY DSC \0\0\0".utf8) + le(1, 2) + entry(0x2002, 4, 1, 3) + le(0, 4)
        let fuji = Array("FUJIFILM".utf8) + le(12, 4) + le(1, 2) + entry(0x1431, 4, 1, 4) + le(0, 4)
        let plain = folder.appendingPathComponent("plain.jpg")
        try CameraJPEG.write(to: plain, .init(width: 160, height: 120, seed: 5))
        let bytes = [UInt8](try Data(contentsOf: plain))
        let segments = try JPEGSegments(bytes)
        let rest = segments.segments.filter { $0.kind != .exif }.flatMap { bytes[$0.range] } + bytes[segments.restStart...]
        for (name, note, group, stars) in [("sony.jpg", sony, "Sony", 3), ("fuji.jpg", fuji, "FujiFilm", 4)] {
            let url = folder.appendingPathComponent(name)
            try Data([0xFF, 0xD8] + exif(note: note) + rest).write(to: url)
            let read = try Subprocess.run(exiftool, ["-s3", "-\(group):Rating", url.path])
            #expect(read.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "\(stars)", "exiftool: \(read.stdout) \(read.stderr)")
            #expect(PhotoRating.read(file: url) == stars)
        }
    }
}
