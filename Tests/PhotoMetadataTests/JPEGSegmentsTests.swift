import PhotoMetadata
import Testing

@Suite struct JPEGSegmentsTests {
    /// SOI, APP0 JFIF, APP1 Exif, APP2 ICC, APP2 MPF, APP13 IPTC, then a quantisation table.
    static let header: [UInt8] =
        [0xFF, 0xD8]
        + JPEGSegments.segment(0xE0, body: Array("JFIF\0".utf8) + [1, 1, 0, 0, 1, 0, 1, 0, 0])
        + JPEGSegments.segment(0xE1, body: Array("Exif\0\0".utf8) + [0x49, 0x49, 42, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        + JPEGSegments.segment(0xE2, body: Array("ICC_PROFILE\0".utf8) + [1, 1])
        + [0xFF]  // a fill byte before a marker is allowed
        + JPEGSegments.segment(0xE2, body: Array("MPF\0".utf8) + [0, 0])
        + JPEGSegments.segment(0xED, body: Array("Photoshop 3.0\0".utf8))
        + JPEGSegments.segment(0xDB, body: [UInt8](repeating: 1, count: 65))

    @Test func findsEachKindAndWhereThePixelsBegin() throws {
        let parsed = try JPEGSegments(Self.header)
        #expect(parsed.segments.map(\.kind) == [.jfif, .exif, .icc, .multiPicture, .iptc])
        #expect(Array(Self.header[parsed.restStart..<(parsed.restStart + 2)]) == [0xFF, 0xDB])
        let exif = parsed.segments[1]
        #expect(Array(Self.header[exif.body].prefix(6)) == Array("Exif\0\0".utf8))
        #expect(exif.range.count == exif.body.count + 4)
    }

    @Test func refusesWhatIsNotAJPEGOrIsCutOff() {
        #expect(throws: JPEGSegments.ParseError.notJPEG) { try JPEGSegments([0x89, 0x50, 0x4E, 0x47]) }
        #expect(throws: JPEGSegments.ParseError.self) { try JPEGSegments(Array(Self.header.prefix(30))) }
        // A segment length running past the end.
        #expect(throws: JPEGSegments.ParseError.self) { try JPEGSegments([0xFF, 0xD8, 0xFF, 0xE1, 0xFF, 0xFF, 0x00]) }
    }

    /// What relay asks a camera for when it reads a photo's head again for its rating: up to the
    /// end of the segment the first read cut off, and nothing more once the segments end.
    @Test func saysHowMuchOfTheHeadTheSegmentsNeed() {
        let exifEnd = 2 + 18 + 24
        #expect(JPEGSegments.bytesNeeded(Self.header) == nil, "every application segment ends within it")
        #expect(JPEGSegments.bytesNeeded(Array(Self.header.prefix(exifEnd - 5))) == exifEnd, "the EXIF block, cut off")
        #expect(JPEGSegments.bytesNeeded(Array(Self.header.prefix(21))) == 24, "not even its length read")
        #expect(JPEGSegments.bytesNeeded([0x89, 0x50, 0x4E, 0x47]) == nil, "not a JPEG")
    }
}
