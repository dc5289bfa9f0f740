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
    private let bigEndian: Bool
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
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): bigEndian = false
        case (0x4D, 0x4D): bigEndian = true
        default: throw .malformed("no byte order mark")
        }
        self.tiff = tiff
        let field = tiff[4..<8].map(UInt32.init)
        ifd0 = Int(
            bigEndian
                ? field[0] << 24 | field[1] << 16 | field[2] << 8 | field[3]
                : field[3] << 24 | field[2] << 16 | field[1] << 8 | field[0])
        _ = try entries(at: ifd0)
    }

    /// One directory entry: its tag, type, count, and where its value (or value offset) is.
    struct Entry {
        var tag: UInt16
        var type: UInt16
        var count: UInt32
        var valueField: Int

        /// Bytes of the value; more than 4 are stored elsewhere, at the offset in the field.
        var dataSize: Int? {
            let sizes: [UInt16: Int] = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4]
            return sizes[type].map { $0 * Int(count) }
        }
    }

    /// The upright rule the photo's pixels follow (1 when the tag is absent or unknown).
    public var orientation: ExifOrientation {
        guard let entry = try? entry(Self.orientationTag, inIFDAt: ifd0), entry.type == 3,
            let value = try? readUInt16(at: entry.valueField)
        else { return .up }
        return ExifOrientation(rawValue: Int(value)) ?? .up
    }

    /// The camera's own small preview (IFD1's JPEGInterchangeFormat and its length, EXIF 2.3
    /// §4.6.6), when the photo carries one that looks like a JPEG: a thumbnail without decoding
    /// the photo. It is stored as the camera held it, before any turn by `orientation`.
    public var thumbnailJPEG: [UInt8]? {
        do {
            let ifd1 = Int(try readUInt32(at: ifd0 + 2 + 12 * entries(at: ifd0).count))
            guard ifd1 != 0, let offset = try entry(Self.thumbnailOffsetTag, inIFDAt: ifd1),
                let length = try entry(Self.thumbnailLengthTag, inIFDAt: ifd1)
            else { return nil }
            let start = Int(try readUInt32(at: offset.valueField))
            let count = Int(try readUInt32(at: length.valueField))
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
        try writeUInt16(1, at: entry.valueField)
    }

    /// Removes the GPS directory and nothing else: its entry leaves IFD0 and its bytes (entries
    /// and the values they point to) are zeroed, so no coordinate is left in the file.
    public mutating func removeGPS() throws(ExifError) {
        let directory = try entries(at: ifd0)
        guard let index = directory.firstIndex(where: { $0.tag == Self.gpsIFDTag }) else { return }
        let gpsOffset = Int(try readUInt32(at: directory[index].valueField))
        // A GPS directory that cannot be read cannot be cleared: the caller leaves the EXIF out.
        let gps = try entries(at: gpsOffset)
        for entry in gps {
            if let size = entry.dataSize, size > 4 {
                let data = Int(try readUInt32(at: entry.valueField))
                try zero(data..<(data + size))
            }
        }
        try zero(gpsOffset..<(gpsOffset + 2 + 12 * gps.count + 4))
        // IFD0 closes up over the removed entry; its next-IFD link moves with it.
        let count = directory.count
        let removed = ifd0 + 2 + 12 * index
        let end = ifd0 + 2 + 12 * count + 4
        tiff.replaceSubrange(removed..<(end - 12), with: tiff[(removed + 12)..<end])
        try zero((end - 12)..<end)
        try writeUInt16(UInt16(count - 1), at: ifd0)
    }

    /// Records the rendition's pixel size in the EXIF sub-directory (where one is recorded).
    public mutating func setPixelSize(width: Int, height: Int) throws(ExifError) {
        guard let pointer = try entry(Self.exifIFDTag, inIFDAt: ifd0) else { return }
        let exifIFD = Int(try readUInt32(at: pointer.valueField))
        for (tag, value) in [(Self.pixelXTag, width), (Self.pixelYTag, height)] {
            guard let entry = try entry(tag, inIFDAt: exifIFD) else { continue }
            switch entry.type {
            case 3 where value <= Int(UInt16.max): try writeUInt16(UInt16(value), at: entry.valueField)
            case 4: try writeUInt32(UInt32(value), at: entry.valueField)
            default: throw .malformed("PixelXDimension/PixelYDimension cannot hold \(value)")
            }
        }
    }

    /// Unlinks the thumbnail directory (IFD1): once the pixels are turned upright, the
    /// camera's sideways thumbnail would be shown sideways by viewers that use it.
    public mutating func removeThumbnailLink() throws(ExifError) {
        let count = try entries(at: ifd0).count
        try writeUInt32(0, at: ifd0 + 2 + 12 * count)
    }

    // MARK: - Reading and writing the TIFF structure

    private func entries(at offset: Int) throws(ExifError) -> [Entry] {
        let count = Int(try readUInt16(at: offset))
        guard offset + 2 + 12 * count + 4 <= tiff.count else { throw .malformed("a directory runs past the end") }
        var list: [Entry] = []
        for i in 0..<count {
            let at = offset + 2 + 12 * i
            list.append(
                Entry(
                    tag: try readUInt16(at: at), type: try readUInt16(at: at + 2),
                    count: try readUInt32(at: at + 4), valueField: at + 8))
        }
        return list
    }

    private func entry(_ tag: UInt16, inIFDAt offset: Int) throws(ExifError) -> Entry? {
        try entries(at: offset).first { $0.tag == tag }
    }

    private func check(_ range: Range<Int>) throws(ExifError) {
        guard range.lowerBound >= 0, range.upperBound <= tiff.count else {
            throw .malformed("an offset points past the end (\(range.lowerBound))")
        }
    }

    private func readUInt16(at offset: Int) throws(ExifError) -> UInt16 {
        try check(offset..<(offset + 2))
        let a = UInt16(tiff[offset])
        let b = UInt16(tiff[offset + 1])
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    private func readUInt32(at offset: Int) throws(ExifError) -> UInt32 {
        let high = UInt32(try readUInt16(at: bigEndian ? offset : offset + 2))
        let low = UInt32(try readUInt16(at: bigEndian ? offset + 2 : offset))
        return high << 16 | low
    }

    private mutating func writeUInt16(_ value: UInt16, at offset: Int) throws(ExifError) {
        try check(offset..<(offset + 2))
        let high = UInt8(value >> 8)
        let low = UInt8(value & 0xFF)
        tiff[offset] = bigEndian ? high : low
        tiff[offset + 1] = bigEndian ? low : high
    }

    private mutating func writeUInt32(_ value: UInt32, at offset: Int) throws(ExifError) {
        try writeUInt16(UInt16(value >> 16), at: bigEndian ? offset : offset + 2)
        try writeUInt16(UInt16(value & 0xFFFF), at: bigEndian ? offset + 2 : offset)
    }

    private mutating func zero(_ range: Range<Int>) throws(ExifError) {
        try check(range)
        for i in range { tiff[i] = 0 }
    }
}
