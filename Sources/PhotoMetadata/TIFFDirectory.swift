/// The directories of a TIFF structure held in memory: the EXIF block of a JPEG, the head of a
/// TIFF-based RAW, or a maker note that is a TIFF of its own. Every offset is checked against
/// the bytes at hand, so a structure cut short (only the first 64 KB of a photo were read) or
/// hostile yields fewer values, never a crash. Layout from TIFF 6.0 §2 and CIPA DC-008 (EXIF).
public struct TIFFDirectory: Sendable {
    public enum ByteOrder: Sendable { case little, big }

    /// One 12-byte directory entry.
    public struct Entry: Sendable, Equatable {
        public var tag: UInt16
        public var type: UInt16
        public var count: UInt32
        /// Where the entry's 4-byte value field is, in the bytes the structure was read from.
        var field: Int
    }

    /// The structure's bytes (from its "II"/"MM" header on).
    let bytes: ArraySlice<UInt8>
    public let order: ByteOrder
    /// Offset of the first directory (IFD0).
    public let firstDirectory: Int

    /// Reads the 8-byte header at the start of `bytes`; nil when it is not a TIFF header.
    public init?(_ bytes: ArraySlice<UInt8>) {
        guard bytes.count >= 8 else { return nil }
        let start = bytes.startIndex
        switch (bytes[start], bytes[start + 1]) {
        case (0x49, 0x49): order = .little
        case (0x4D, 0x4D): order = .big
        default: return nil
        }
        self.bytes = bytes
        guard let magic = Self.unsigned(bytes, at: 2, size: 2, order: order), magic == 42,
            let first = Self.unsigned(bytes, at: 4, size: 4, order: order)
        else { return nil }
        firstDirectory = Int(first)
    }

    /// A structure without a TIFF header: a maker note whose directory sits at `firstDirectory`
    /// and whose offsets count from the start of `bytes` (Fujifilm's, always little-endian).
    public init(headerless bytes: ArraySlice<UInt8>, order: ByteOrder, firstDirectory: Int) {
        self.bytes = bytes
        self.order = order
        self.firstDirectory = firstDirectory
    }

    /// Where `slice` (a value of this structure) starts, counted from the structure's start.
    func offset(of slice: ArraySlice<UInt8>) -> Int { slice.startIndex - bytes.startIndex }

    /// The entries of the directory at `offset`; empty when it lies outside the bytes at hand.
    public func entries(at offset: Int) -> [Entry] {
        guard let count = unsigned(at: offset, size: 2), count <= 1000 else { return [] }
        var list: [Entry] = []
        for index in 0..<Int(count) {
            let at = offset + 2 + 12 * index
            guard let tag = unsigned(at: at, size: 2), let type = unsigned(at: at + 2, size: 2),
                let count = unsigned(at: at + 4, size: 4)
            else { break }
            list.append(Entry(tag: UInt16(tag), type: UInt16(type), count: UInt32(count), field: at + 8))
        }
        return list
    }

    /// The entry for `tag` in the directory at `offset`.
    public func entry(_ tag: UInt16, at offset: Int) -> Entry? {
        entries(at: offset).first { $0.tag == tag }
    }

    /// The bytes of an entry's value: in its field when they fit in 4, else at the offset there.
    public func value(_ entry: Entry) -> ArraySlice<UInt8>? {
        guard let size = Self.typeSize(entry.type) else { return nil }
        let length = size * Int(entry.count)
        guard length >= 0, length <= bytes.count else { return nil }
        let start: Int
        if length <= 4 {
            start = entry.field
        } else {
            guard let offset = unsigned(at: entry.field, size: 4) else { return nil }
            start = Int(offset)
        }
        guard start >= 0, start + length <= bytes.count else { return nil }
        return bytes[(bytes.startIndex + start)..<(bytes.startIndex + start + length)]
    }

    /// An ASCII value, without its NUL and trailing spaces; nil when empty.
    public func text(_ entry: Entry) -> String? {
        guard entry.type == 2 || entry.type == 7, let raw = value(entry) else { return nil }
        let visible = raw.prefix { $0 != 0 }.filter { (0x20..<0x7F).contains($0) }
        let trimmed = String(decoding: visible, as: UTF8.self).trimmingSpaces
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The first value of a BYTE, SHORT or LONG entry.
    public func number(_ entry: Entry) -> UInt32? {
        guard let raw = value(entry), entry.count >= 1 else { return nil }
        switch entry.type {
        case 1: return UInt32(raw[raw.startIndex])
        case 3: return Self.unsigned(raw, at: 0, size: 2, order: order).map(UInt32.init)
        case 4: return Self.unsigned(raw, at: 0, size: 4, order: order).map(UInt32.init)
        default: return nil
        }
    }

    /// The directory a LONG (or IFD-typed) entry points to.
    public func directory(_ entry: Entry) -> Int? {
        guard entry.type == 4 || entry.type == 13 else { return nil }
        return unsigned(at: entry.field, size: 4).map(Int.init)
    }

    /// Bytes per value of each TIFF field type, nil for a type TIFF does not have.
    static func typeSize(_ type: UInt16) -> Int? {
        switch type {
        case 1, 2, 6, 7: 1
        case 3, 8: 2
        case 4, 9, 11, 13: 4
        case 5, 10, 12: 8
        default: nil
        }
    }

    private func unsigned(at offset: Int, size: Int) -> UInt64? {
        Self.unsigned(bytes, at: offset, size: size, order: order)
    }

    private static func unsigned(_ bytes: ArraySlice<UInt8>, at offset: Int, size: Int, order: ByteOrder) -> UInt64? {
        guard offset >= 0, offset + size <= bytes.count else { return nil }
        var value: UInt64 = 0
        for index in 0..<size {
            let byte = UInt64(bytes[bytes.startIndex + offset + index])
            value |= order == .little ? byte << (8 * UInt64(index)) : byte << (8 * UInt64(size - 1 - index))
        }
        return value
    }
}

extension String {
    var trimmingSpaces: String {
        var characters = Substring(self)
        while characters.last == " " { characters.removeLast() }
        while characters.first == " " { characters.removeFirst() }
        return String(characters)
    }
}
