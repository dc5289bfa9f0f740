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
}
