/// The ratings two vendors keep only in their maker notes, as exiftool's tag tables and
/// `MakerNotes.pm` describe them:
/// - Sony: tag 0x2002 Rating (int32u, 0 to 5 stars) in a note starting "SONY DSC ", "SONY CAM "
///   or "SONY MOBILE"; its directory begins 12 bytes in, its offsets count from the EXIF block's
///   TIFF header, in its byte order (`Sony.pm`, MakerNoteSony).
/// - Fujifilm: tag 0x1431 Rating (int32u) in a note starting "FUJIFILM": little-endian, the
///   directory's offset at byte 8, offsets counted from the note's start (`FujiFilm.pm`,
///   MakerNoteFujiFilm).
enum MakerNoteRating {
    /// The rating in the maker note of the EXIF structure `tiff`, nil when it keeps none.
    static func read(_ tiff: TIFFDirectory) -> Int? {
        guard let exif = tiff.entry(0x8769, at: tiff.firstDirectory).flatMap(tiff.directory),
            let entry = tiff.entry(0x927C, at: exif), let note = tiff.value(entry)
        else { return nil }
        if ["SONY DSC ", "SONY CAM ", "SONY MOBILE"].contains(where: { note.starts(with: Array($0.utf8)) }) {
            return stars(in: tiff, tag: 0x2002, at: tiff.offset(of: note) + 12)
        }
        if note.starts(with: Array("FUJIFILM".utf8)), note.count >= 12 {
            let start = note.startIndex + 8
            let first = Int(note[start]) | Int(note[start + 1]) << 8 | Int(note[start + 2]) << 16 | Int(note[start + 3]) << 24
            return stars(in: TIFFDirectory(headerless: note, order: .little, firstDirectory: first), tag: 0x1431, at: first)
        }
        return nil
    }

    /// 0 to 5 stars from an int32u entry; anything else (a panorama's 0xFFFFFFFF) is none.
    private static func stars(in directory: TIFFDirectory, tag: UInt16, at offset: Int) -> Int? {
        guard let entry = directory.entry(tag, at: offset), let value = directory.number(entry), value <= 5 else { return nil }
        return Int(value)
    }
}
