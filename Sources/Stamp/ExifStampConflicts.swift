import PhotoMetadata

/// A camera's own EXIF Artist, Copyright and ImageDescription (the owner's name, "OLYMPUS
/// DIGITAL CAMERA") would win over the stamp in a reader that follows the Metadata Working
/// Group's rules (exiftool's MWG.pm: a non-blank EXIF value comes first). Each one the stamp
/// writes is rewritten in place: the stamp's text when it is ASCII and fits the bytes the camera
/// gave it, else NUL bytes, which MWG readers take as absent, so the XMP and IPTC values are
/// read. Nothing in the EXIF block moves, so the maker note's offsets stay right.
enum ExifStampConflicts {
    /// IFD0 tags and the stamp field each one stands for.
    static let tags: [(tag: UInt16, field: String)] = [(0x013B, "creator"), (0x8298, "copyright"), (0x010E, "caption")]

    /// Rewrites, in `header`, the EXIF block `exif` (a segment of it); returns what was done,
    /// for the run's log ("EXIF Artist replaced").
    static func resolve(_ header: inout [UInt8], exif: JPEGSegments.Segment, values: StampValues) -> [String] {
        let body = header[exif.body]
        guard body.starts(with: Array("Exif\0\0".utf8)),
            let tiff = TIFFDirectory(body.dropFirst(JPEGSegments.exifSignatureLength))
        else { return [] }
        var done: [String] = []
        for (tag, field) in tags {
            let value = values.text(of: field)
            guard !value.isEmpty, let entry = tiff.entry(tag, at: tiff.firstDirectory), entry.type == 2,
                tiff.text(entry) != nil, let bytes = tiff.value(entry)
            else { continue }
            let replacement = Array(value.utf8)
            let fits = value.allSatisfy(\.isASCII) && replacement.count < bytes.count
            for (offset, index) in bytes.indices.enumerated() {
                header[index] = fits && offset < replacement.count ? replacement[offset] : 0
            }
            done.append("EXIF \(Self.name(tag)) " + (fits ? "replaced" : "blanked (the stamp's text does not fit in place)"))
        }
        return done
    }

    private static func name(_ tag: UInt16) -> String {
        switch tag {
        case 0x013B: "Artist"
        case 0x8298: "Copyright"
        default: "ImageDescription"
        }
    }
}
