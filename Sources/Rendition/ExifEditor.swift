import PhotoMetadata

/// Edits a photo's EXIF (the TIFF structure inside its APP1 segment) in place, without moving
/// anything: every offset stays valid, so maker notes and tags relay does not know survive.
/// A rewriting EXIF library would re-serialise the whole block and is known to break maker
/// notes whose offsets it cannot see.
public struct ExifEditor: Sendable {
    public enum ExifError: Error, Equatable, Sendable, CustomStringConvertible {
        case malformed(String)

        public var description: String {
            switch self {
            case .malformed(let what): "its EXIF is malformed (\(what))"
            }
        }
    }

    /// The TIFF structure: byte order, 42, IFD0 offset, then the directories.
    public private(set) var tiff: [UInt8]
    private let order: TIFFDirectory.ByteOrder
    private let ifd0: Int

    static let orientationTag: UInt16 = 0x0112
    static let exifIFDTag: UInt16 = 0x8769
    static let gpsIFDTag: UInt16 = 0x8825
    static let pixelXTag: UInt16 = 0xA002
    static let pixelYTag: UInt16 = 0xA003
    static let thumbnailOffsetTag: UInt16 = 0x0201
    static let thumbnailLengthTag: UInt16 = 0x0202

    public init(tiff: [UInt8]) throws(ExifError) {
        guard tiff.count >= 8 else { throw .malformed("shorter than its header") }
        // Whatever its magic number: a camera's EXIF is edited as long as its directories read.
        guard let header = TIFFDirectory(tiff[...], magic: { _ in true }) else { throw .malformed("no byte order mark") }
        self.tiff = tiff
        order = header.order
        ifd0 = header.firstDirectory
        _ = try linkField(at: ifd0)
    }

    /// The upright rule the photo's pixels follow (1 when the tag is absent or unknown).
    public var orientation: ExifOrientation {
        guard let entry = try? entry(Self.orientationTag, inIFDAt: ifd0), entry.type == 3,
            let value = structure.unsigned(at: entry.field, size: 2)
        else { return .up }
        return ExifOrientation(rawValue: Int(value)) ?? .up
    }

    /// The camera's own small preview (IFD1's JPEGInterchangeFormat and its length, EXIF 2.3
    /// §4.6.6), when the photo carries one that looks like a JPEG: a thumbnail without decoding
    /// the photo. It is stored as the camera held it, before any turn by `orientation`.
    public var thumbnailJPEG: [UInt8]? {
        do {
            let ifd1 = try number(4, at: linkField(at: ifd0))
            guard ifd1 != 0, let offset = try entry(Self.thumbnailOffsetTag, inIFDAt: ifd1),
                let length = try entry(Self.thumbnailLengthTag, inIFDAt: ifd1)
            else { return nil }
            let start = try number(4, at: offset.field)
            let count = try number(4, at: length.field)
            guard count > 4 else { return nil }
            try check(start..<(start + count))
            let jpeg = Array(tiff[start..<(start + count)])
            return jpeg.starts(with: [0xFF, 0xD8]) ? jpeg : nil
        } catch {
            return nil
        }
    }

    /// Whether the EXIF has a GPS directory.
    public var hasGPS: Bool { (try? entry(Self.gpsIFDTag, inIFDAt: ifd0)) != nil }

    /// Says the pixels are upright (after a rendition turned them).
    public mutating func setOrientationUpright() throws(ExifError) {
        guard let entry = try entry(Self.orientationTag, inIFDAt: ifd0) else { return }
        guard entry.type == 3 else { throw .malformed("Orientation is not a SHORT") }
        try write(1, size: 2, at: entry.field)
    }

    /// Removes the GPS directory and nothing else: its entry leaves IFD0 and its bytes (entries
    /// and the values they point to) are zeroed, so no coordinate is left in the file.
    public mutating func removeGPS() throws(ExifError) {
        let directory = try entries(at: ifd0)
        guard let index = directory.firstIndex(where: { $0.tag == Self.gpsIFDTag }) else { return }
        let gpsOffset = try number(4, at: directory[index].field)
        // A GPS directory that cannot be read cannot be cleared: the caller leaves the EXIF out.
        let gps = try entries(at: gpsOffset)
        for range in gps.compactMap(\.valueRange) where range.count > 4 {
            try zero(range)
        }
        try zero(gpsOffset..<(gpsOffset + 2 + 12 * gps.count + 4))
        // IFD0 closes up over the removed entry; its next-IFD link moves with it.
        let count = directory.count
        let removed = ifd0 + 2 + 12 * index
        let end = ifd0 + 2 + 12 * count + 4
        tiff.replaceSubrange(removed..<(end - 12), with: tiff[(removed + 12)..<end])
        try zero((end - 12)..<end)
        try write(count - 1, size: 2, at: ifd0)
    }

    /// Records the rendition's pixel size in the EXIF sub-directory (where one is recorded).
    public mutating func setPixelSize(width: Int, height: Int) throws(ExifError) {
        guard let pointer = try entry(Self.exifIFDTag, inIFDAt: ifd0) else { return }
        let exifIFD = try number(4, at: pointer.field)
        for (tag, value) in [(Self.pixelXTag, width), (Self.pixelYTag, height)] {
            guard let entry = try entry(tag, inIFDAt: exifIFD) else { continue }
            switch entry.type {
            case 3 where value <= Int(UInt16.max): try write(value, size: 2, at: entry.field)
            case 4: try write(value, size: 4, at: entry.field)
            default: throw .malformed("PixelXDimension/PixelYDimension cannot hold \(value)")
            }
        }
    }

    /// Unlinks the thumbnail directory (IFD1): once the pixels are turned upright, the
    /// camera's sideways thumbnail would be shown sideways by viewers that use it.
    public mutating func removeThumbnailLink() throws(ExifError) {
        try write(0, size: 4, at: linkField(at: ifd0))
    }

    // MARK: - Reading and writing the TIFF structure

    /// The structure as the edits so far left it, read through PhotoMetadata's TIFF walker.
    private var structure: TIFFDirectory { TIFFDirectory(headerless: tiff[...], order: order, firstDirectory: ifd0) }

    /// Where the directory at `offset` links to the next one; the directory, link included, must
    /// lie whole inside the structure, or it is not edited.
    private func linkField(at offset: Int) throws(ExifError) -> Int {
        guard let link = structure.linkField(at: offset) else { throw .malformed("an offset points past the end (\(offset))") }
        guard link + 4 <= tiff.count else { throw .malformed("a directory runs past the end") }
        return link
    }

    /// Every entry of the directory at `offset`, however many it has.
    private func entries(at offset: Int) throws(ExifError) -> [TIFFDirectory.Entry] {
        _ = try linkField(at: offset)
        return structure.entries(at: offset, limit: .max)
    }

    private func entry(_ tag: UInt16, inIFDAt offset: Int) throws(ExifError) -> TIFFDirectory.Entry? {
        try entries(at: offset).first { $0.tag == tag }
    }

    private func check(_ range: Range<Int>) throws(ExifError) {
        guard range.lowerBound >= 0, range.upperBound <= tiff.count else {
            throw .malformed("an offset points past the end (\(range.lowerBound))")
        }
    }

    /// The `size`-byte number at `offset`, whatever type its entry claims.
    private func number(_ size: Int, at offset: Int) throws(ExifError) -> Int {
        guard let value = structure.unsigned(at: offset, size: size) else { throw .malformed("an offset points past the end (\(offset))") }
        return Int(value)
    }

    private mutating func write(_ value: Int, size: Int, at offset: Int) throws(ExifError) {
        try check(offset..<(offset + size))
        tiff.replaceSubrange(offset..<(offset + size), with: order.bytes(UInt64(value), size: size))
    }

    private mutating func zero(_ range: Range<Int>) throws(ExifError) {
        try check(range)
        tiff.replaceSubrange(range, with: repeatElement(0, count: range.count))
    }
}
