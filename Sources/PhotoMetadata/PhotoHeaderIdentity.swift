import Foundation
import RelayCore

/// What a photo's own header says it is, for a body that describes nothing before the download
/// (a Nikon Z in "connect to computer" mode, a Canon capture held in memory with no name): the
/// camera wrote it into the file at the shutter, so it is the same in every session, whatever
/// object handle the body hands out (PTP promises a handle is unique only within a session).
///
/// Read from the first bytes of the file (``readLength``): a JPEG's EXIF (APP1) or a TIFF-based
/// RAW's own directories. The fields, with their tags (CIPA DC-008; exiftool's Nikon and Canon
/// tag tables for the maker notes):
/// - body serial: EXIF BodySerialNumber 0xA431, else Nikon's maker note 0x001D SerialNumber or
///   Canon's 0x000C SerialNumber;
/// - capture time: DateTimeOriginal 0x9003 with SubSecTimeOriginal 0x9291;
/// - ImageUniqueID 0xA420;
/// - Nikon's shutter count, maker note 0x00A7 (stored unencrypted: exiftool uses it as a key);
/// - the owner set in the camera's menu, IFD0 Artist 0x013B (not part of the identity).
/// When the file names no capture time, the digest of its first ``readLength`` bytes is the
/// identity: the last resort. It is unique to the photo (past a small header it covers image
/// data), though a header the camera rewrites later (a rating) changes it: a photo may then be
/// sent twice, never lost.
public struct PhotoHeaderIdentity: Sendable, Equatable {
    public var make: String?
    public var model: String?
    public var serial: String?
    /// "YYYY:MM:DD HH:MM:SS", as EXIF writes it.
    public var capturedAt: String?
    public var subSeconds: String?
    public var uniqueID: String?
    public var shutterCount: UInt32?
    /// Who the camera says shot it: the name its owner set in its menu (Canon's "Author", Nikon's
    /// and Sony's "Artist"), written into every photo.
    public var artist: String?
    /// SHA-256 (hex) of the file's first ``readLength`` bytes.
    public var digest: String

    /// How much of a photo is read to learn its identity: a JPEG's EXIF block is at most 64 KB
    /// and comes first, and 64 KB is little next to a photo's download.
    public static let readLength = 65_536

    public init(head: [UInt8]) {
        let tiff: TIFFDirectory?
        if head.starts(with: [0xFF, 0xD8]) {
            let exif = JPEGSegments.leadingSegments(head).first { $0.kind == .exif }
            tiff = exif.flatMap { TIFFDirectory(head[$0.body].dropFirst(JPEGSegments.exifSignatureLength)) }
        } else {
            tiff = TIFFDirectory(head[...])
        }
        var digest = SHA256Digest()
        digest.update(head.prefix(Self.readLength))
        self.digest = digest.hex()
        guard let tiff else { return }
        let ifd0 = tiff.firstDirectory
        make = tiff.entry(0x010F, at: ifd0).flatMap(tiff.text)
        model = tiff.entry(0x0110, at: ifd0).flatMap(tiff.text)
        artist = tiff.entry(0x013B, at: ifd0).flatMap(tiff.words)
        guard let exif = tiff.entry(0x8769, at: ifd0).flatMap(tiff.directory) else { return }
        capturedAt = tiff.entry(0x9003, at: exif).flatMap(tiff.text)
        subSeconds = tiff.entry(0x9291, at: exif).flatMap(tiff.text)
        uniqueID = tiff.entry(0xA420, at: exif).flatMap(tiff.text)
        serial = tiff.entry(0xA431, at: exif).flatMap(tiff.text)
        if let note = tiff.entry(0x927C, at: exif), let bytes = tiff.value(note) {
            readMakerNote(bytes, outer: tiff)
        }
    }

    /// Nikon's type-3 maker note is a TIFF of its own after "Nikon\0", two version bytes and two
    /// zero bytes; Canon's is a directory whose offsets count from the EXIF block's TIFF header.
    private mutating func readMakerNote(_ note: ArraySlice<UInt8>, outer: TIFFDirectory) {
        let maker = (make ?? "").uppercased()
        if maker.hasPrefix("NIKON"), note.starts(with: Array("Nikon\0".utf8)), let nikon = TIFFDirectory(note.dropFirst(10)) {
            let ifd = nikon.firstDirectory
            if serial == nil { serial = nikon.entry(0x001D, at: ifd).flatMap(nikon.text) }
            shutterCount = nikon.entry(0x00A7, at: ifd).flatMap(nikon.number)
        } else if maker.hasPrefix("CANON"), serial == nil {
            let offset = note.startIndex - outer.bytes.startIndex
            serial = outer.entry(0x000C, at: offset).flatMap(outer.number).map { String($0) }
        }
    }

    /// Whether the header tells this photo from the body's next one: a capture time with
    /// sub-seconds, a unique id or a shutter count. A time to the second alone does not (a
    /// burst), so the digest is added to it.
    var isDistinct: Bool { subSeconds != nil || uniqueID != nil || shutterCount != nil }

    /// The seen-log key: what the camera wrote, or the digest as the last resort.
    public var key: String {
        guard let capturedAt else { return "header|" + digest }
        var parts = [
            "exif", serial ?? "", capturedAt + (subSeconds.map { "." + $0 } ?? ""), uniqueID ?? "",
            shutterCount.map { String($0) } ?? "",
        ]
        if !isDistinct { parts.append(String(digest.prefix(16))) }
        return parts.joined(separator: "|")
    }

    /// The photo as a person would recognise it, for "already taken" lines.
    public var summary: String {
        guard let capturedAt else { return "its header (no capture time in it), SHA-256 \(digest.prefix(12))…" }
        var parts: [String] = []
        if let serial { parts.append("body serial \(serial)") }
        parts.append("shot \(capturedAt)" + (subSeconds.map { "." + $0 } ?? ""))
        if let shutterCount { parts.append("shutter count \(shutterCount)") }
        if let uniqueID { parts.append("image id \(uniqueID)") }
        if !isDistinct { parts.append("header SHA-256 \(digest.prefix(12))…") }
        return parts.joined(separator: ", ")
    }

    /// A file name from the capture time, `PREFIX_YYYYMMDD_HHMMSS[SS].EXT`: the same for every
    /// session and sorted as shot (event galleries sort by name); nil without a capture time.
    public func fileName(prefix: String, fileExtension: String) -> String? {
        guard let capturedAt else { return nil }
        let digits = capturedAt.filter(\.isNumber)
        guard digits.count == 14 else { return nil }
        let fraction = (subSeconds ?? "").filter(\.isNumber)
        let stamp = digits.prefix(8) + "_" + digits.suffix(6) + fraction
        let count = shutterCount.map { "_" + String($0) } ?? ""
        return "\(prefix)_\(stamp)\(count).\(fileExtension)"
    }
}
