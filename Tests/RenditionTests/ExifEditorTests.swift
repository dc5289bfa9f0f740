import Rendition
import Testing

@Suite struct ExifEditorTests {
    static let latitude: [(UInt32, UInt32)] = [(52, 1), (22, 1), (1250, 100)]

    /// IFD0 (Make, Orientation 6, Exif IFD, GPS IFD, Model) → IFD1; the Exif IFD with the pixel size; the GPS IFD.
    static func camera(bigEndian: Bool) -> (tiff: [UInt8], ifd0: Int) {
        var b = TIFFBuilder(bigEndian: bigEndian)
        let ifd0 = b.directory([
            b.ascii(0x010F, "Canon"), b.short(0x0112, 6), b.long(0x8769, 0), b.long(0x8825, 0), b.ascii(0x0110, "Canon EOS R5"),
        ])
        let exif = b.directory([b.long(0xA002, 8192), b.long(0xA003, 5464)])
        let gps = b.directory([b.ascii(0x0001, "N"), b.rationals(0x0002, latitude)])
        let ifd1 = b.directory([b.long(0x0201, 0), b.long(0x0202, 0)])
        b.link(directory: ifd0, tag: 0x8769, to: exif)
        b.link(directory: ifd0, tag: 0x8825, to: gps)
        var bytes = b.bytes
        let next = ifd0 + 2 + 12 * 5
        bytes.replaceSubrange(next..<(next + 4), with: b.u32(UInt32(ifd1)))
        return (bytes, ifd0)
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }

    @Test(arguments: [false, true])
    func removingGPSLeavesTheRestReadable(bigEndian: Bool) throws {
        let (tiff, ifd0) = Self.camera(bigEndian: bigEndian)
        let builder = TIFFBuilder(bigEndian: bigEndian)
        let latitudeBytes = Self.latitude.flatMap { builder.u32($0.0) + builder.u32($0.1) }
        #expect(Self.contains(tiff, latitudeBytes))
        var editor = try ExifEditor(tiff: tiff)
        #expect(editor.hasGPS)
        try editor.removeGPS()
        let edited = editor.tiff
        #expect(edited.count == tiff.count, "nothing moves")
        #expect(!Self.contains(edited, latitudeBytes), "the coordinates are zeroed, not only unlinked")
        // IFD0 lost one entry and nothing else: the strings and tags around it are intact.
        #expect(Array(edited[ifd0..<(ifd0 + 2)]) == builder.u16(4))
        #expect(Self.contains(edited, Array("Canon EOS R5".utf8)))
        let reread = try ExifEditor(tiff: edited)
        #expect(!reread.hasGPS)
        #expect(reread.orientation == .right)
        // The thumbnail link moved up with the directory's end and still points at IFD1.
        let originalLink = Array(tiff[(ifd0 + 2 + 60)..<(ifd0 + 2 + 64)])
        #expect(Array(edited[(ifd0 + 2 + 48)..<(ifd0 + 2 + 52)]) == originalLink)
        #expect(Array(edited[(ifd0 + 2 + 52)..<(ifd0 + 2 + 64)]) == [UInt8](repeating: 0, count: 12))
    }

    @Test func uprightClearsTheOrientationAndTheThumbnailLink() throws {
        let (tiff, ifd0) = Self.camera(bigEndian: false)
        var editor = try ExifEditor(tiff: tiff)
        #expect(editor.orientation == .right)
        try editor.setOrientationUpright()
        try editor.removeThumbnailLink()
        try editor.setPixelSize(width: 1366, height: 2048)
        let edited = editor.tiff
        #expect(try ExifEditor(tiff: edited).orientation == .up)
        #expect(Array(edited[(ifd0 + 62)..<(ifd0 + 66)]) == [0, 0, 0, 0])
        let builder = TIFFBuilder(bigEndian: false)
        #expect(Self.contains(edited, builder.u32(1366)) && Self.contains(edited, builder.u32(2048)))
        #expect(!Self.contains(edited, builder.u32(8192)))
    }

    @Test(arguments: [false, true])
    func theCamerasPreviewIsFoundThroughIFD1(bigEndian: Bool) throws {
        var b = TIFFBuilder(bigEndian: bigEndian)
        let preview: [UInt8] = [0xFF, 0xD8, 0xFF, 0xDB, 1, 2, 3, 0xFF, 0xD9]
        let ifd0 = b.directory([b.short(0x0112, 1)])
        let ifd1 = b.directory([b.long(0x0201, 0), b.long(0x0202, UInt32(preview.count))])
        let start = b.bytes.count
        var bytes = b.bytes + preview
        bytes.replaceSubrange((ifd0 + 14)..<(ifd0 + 18), with: b.u32(UInt32(ifd1)))
        bytes.replaceSubrange((ifd1 + 10)..<(ifd1 + 14), with: b.u32(UInt32(start)))
        #expect(try ExifEditor(tiff: bytes).thumbnailJPEG == preview)
        // Past the end, or not a JPEG: none.
        var long = bytes
        long.replaceSubrange((ifd1 + 22)..<(ifd1 + 26), with: b.u32(UInt32(preview.count + 1)))
        #expect(try ExifEditor(tiff: long).thumbnailJPEG == nil)
        var notJPEG = bytes
        notJPEG[start] = 0
        #expect(try ExifEditor(tiff: notJPEG).thumbnailJPEG == nil)
        // Without IFD1 (the camera fixture's IFD1 has a zero length): none.
        #expect(try ExifEditor(tiff: Self.camera(bigEndian: bigEndian).tiff).thumbnailJPEG == nil)
    }

    @Test func withoutGPSNothingChanges() throws {
        var b = TIFFBuilder(bigEndian: true)
        _ = b.directory([b.ascii(0x010F, "Nikon"), b.short(0x0112, 1)])
        var editor = try ExifEditor(tiff: b.bytes)
        #expect(!editor.hasGPS)
        try editor.removeGPS()
        #expect(editor.tiff == b.bytes)
    }

    @Test func malformedOffsetsAreRefusedNotFollowed() {
        var b = TIFFBuilder(bigEndian: false)
        _ = b.directory([b.long(0x8825, 0xFFFF_FF00)])
        #expect(throws: ExifEditor.ExifError.self) {
            var editor = try ExifEditor(tiff: b.bytes)
            try editor.removeGPS()
        }
        #expect(throws: ExifEditor.ExifError.self) { try ExifEditor(tiff: [0x49, 0x49, 42, 0, 0xFF, 0, 0, 0]) }
        #expect(throws: ExifEditor.ExifError.self) { try ExifEditor(tiff: [0x41, 0x41, 42, 0, 8, 0, 0, 0]) }
    }
}
