/// The directories of a TIFF structure held in memory: the EXIF block of a JPEG, the head of a
/// TIFF-based RAW, or a maker note that is a TIFF of its own. Every offset is checked against
/// the bytes at hand, so a structure cut short (only the first 64 KB of a photo were read) or
/// hostile yields fewer values, never a crash. Layout from TIFF 6.0 §2 and CIPA DC-008 (EXIF).
/// The one TIFF walker: the EXIF editor and the RAW structure check read through it too.
public struct TIFFDirectory: Sendable {
    public enum ByteOrder: Sendable {
        case little, big

        /// The unsigned number `bytes` hold, most significant byte last (little) or first (big).
        func unsigned(_ bytes: ArraySlice<UInt8>) -> UInt64 {
            self == .little ? bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) } : bytes.reduce(0) { $0 << 8 | UInt64($1) }
        }

        /// `value` as `size` bytes in this order: what an editor writes in place of a field.
        public func bytes(_ value: UInt64, size: Int) -> [UInt8] {
            let littleEndian = (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
            return self == .little ? littleEndian : littleEndian.reversed()
        }
    }

    /// One 12-byte directory entry.
    public struct Entry: Sendable, Equatable {
        public var tag: UInt16
        public var type: UInt16
        public var count: UInt32
        /// Where the entry's 4-byte value field is, in the bytes the structure was read from: an
        /// editor writes a new value there without moving anything.
        public var field: Int
        /// Where its value lies: in its field when it fits in 4 bytes, else at the offset there;
        /// nil for a type TIFF does not have or a field cut off. It may lie outside the bytes at
        /// hand: an editor zeroes it in place, the RAW check reads it from the file.
        public var valueRange: Range<Int>?
    }

    /// The structure's bytes at hand (from its "II"/"MM" header on, or a part from `origin` on).
    let bytes: ArraySlice<UInt8>
    /// Where `bytes` start in the structure: 0 but for a part of a RAW read from its file.
    let origin: Int
    public let order: ByteOrder
    /// Offset of the first directory (IFD0).
    public let firstDirectory: Int

    /// Reads the 8-byte header at the start of `bytes`; nil when it is not a TIFF header. RAW
    /// formats built on TIFF have magic numbers of their own, hence `magic`.
    public init?(_ bytes: ArraySlice<UInt8>, magic: (UInt16) -> Bool = { $0 == 42 }) {
        guard bytes.count >= 8 else { return nil }
        let order: ByteOrder
        switch (bytes[bytes.startIndex], bytes[bytes.startIndex + 1]) {
        case (0x49, 0x49): order = .little
        case (0x4D, 0x4D): order = .big
        default: return nil
        }
        guard magic(UInt16(order.unsigned(bytes.dropFirst(2).prefix(2)))) else { return nil }
        self.bytes = bytes
        self.order = order
        origin = 0
        firstDirectory = Int(order.unsigned(bytes.dropFirst(4).prefix(4)))
    }

    /// A structure without a TIFF header: a maker note whose directory sits at `firstDirectory`
    /// and whose offsets count from the start of `bytes` (Fujifilm's, always little-endian).
    public init(headerless bytes: ArraySlice<UInt8>, order: ByteOrder, firstDirectory: Int) {
        self.bytes = bytes
        self.order = order
        self.firstDirectory = firstDirectory
        origin = 0
    }

    /// The bytes from `origin` on of a structure too large to hold (a RAW on disk, read a
    /// directory or a value at a time), so that offsets still count from the structure's start;
    /// `firstDirectory` is where the part starts.
    init(part bytes: ArraySlice<UInt8>, at origin: Int, order: ByteOrder) {
        self.bytes = bytes
        self.order = order
        self.origin = origin
        firstDirectory = origin
    }

    /// Where `slice` (a value of this structure) starts, counted from the structure's start.
    func offset(of slice: ArraySlice<UInt8>) -> Int { origin + slice.startIndex - bytes.startIndex }

    /// The entries of the directory at `offset`; empty when it lies outside the bytes at hand or
    /// claims more than `limit` (no camera writes a thousand).
    public func entries(at offset: Int, limit: Int = 1000) -> [Entry] {
        guard let count = unsigned(at: offset, size: 2), count <= limit else { return [] }
        var list: [Entry] = []
        for at in stride(from: offset + 2, to: offset + 2 + 12 * Int(count), by: 12) {
            guard let tag = unsigned(at: at, size: 2).map(UInt16.init), let type = unsigned(at: at + 2, size: 2).map(UInt16.init),
                let count = unsigned(at: at + 4, size: 4).map(UInt32.init)
            else { break }
            let range = valueRange(type: type, count: count, field: at + 8)
            list.append(Entry(tag: tag, type: type, count: count, field: at + 8, valueRange: range))
        }
        return list
    }

    /// The entry for `tag` in the directory at `offset`.
    public func entry(_ tag: UInt16, at offset: Int) -> Entry? {
        entries(at: offset).first { $0.tag == tag }
    }

    /// Where the directory at `offset` keeps the offset of the next one (IFD0's leads to the
    /// thumbnail's IFD1): after its entries. An editor unlinks the next directory there.
    public func linkField(at offset: Int) -> Int? {
        unsigned(at: offset, size: 2).map { offset + 2 + 12 * Int($0) }
    }

    /// The directory after the one at `offset` in its chain; 0 at the chain's end.
    func nextDirectory(at offset: Int) -> Int? {
        linkField(at: offset).flatMap { unsigned(at: $0, size: 4) }.map(Int.init)
    }

    /// The bytes of an entry's value, when they are at hand.
    public func value(_ entry: Entry) -> ArraySlice<UInt8>? {
        entry.valueRange.flatMap { slice($0) }
    }

    /// An ASCII value, without its NUL and trailing spaces; nil when empty.
    public func text(_ entry: Entry) -> String? {
        guard entry.type == 2 || entry.type == 7, let raw = value(entry) else { return nil }
        let visible = raw.prefix { $0 != 0 }.filter { (0x20..<0x7F).contains($0) }
        let trimmed = String(decoding: visible, as: UTF8.self).trimmingSpaces
        return trimmed.isEmpty ? nil : trimmed
    }

    /// Text a person typed (the owner's name): UTF-8 when its bytes are, as exiftool and photo
    /// editors write it, else its printable ASCII as ``text(_:)`` reads it; control characters go.
    public func words(_ entry: Entry) -> String? {
        guard entry.type == 2 || entry.type == 7, let raw = value(entry) else { return nil }
        guard let decoded = String(validating: Array(raw.prefix { $0 != 0 }), as: UTF8.self) else { return text(entry) }
        let visible = String(String.UnicodeScalarView(decoded.unicodeScalars.filter { $0.properties.generalCategory != .control }))
        let trimmed = visible.trimmingSpaces
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The first value of a BYTE, SHORT or LONG entry.
    public func number(_ entry: Entry) -> UInt32? {
        entry.type == 13 ? nil : numbers(entry)?.first
    }

    /// Every value of a BYTE, SHORT, LONG or IFD (a LONG that points to a directory) entry.
    func numbers(_ entry: Entry) -> [UInt32]? {
        guard [1, 3, 4, 13].contains(entry.type), let size = Self.typeSize(entry.type), let raw = value(entry) else { return nil }
        return stride(from: raw.startIndex, to: raw.endIndex, by: size).map { UInt32(order.unsigned(raw[$0..<($0 + size)])) }
    }

    /// The directory a LONG (or IFD-typed) entry points to.
    public func directory(_ entry: Entry) -> Int? {
        guard entry.type == 4 || entry.type == 13 else { return nil }
        return unsigned(at: entry.field, size: 4).map(Int.init)
    }

    /// The `size`-byte unsigned number at `offset`, nil when it is not at hand: for an editor
    /// that reads a field or a link whatever type the entry claims.
    public func unsigned(at offset: Int, size: Int) -> UInt64? {
        slice(offset..<(offset + size)).map { order.unsigned($0) }
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

    /// An entry's ``Entry/valueRange``.
    private func valueRange(type: UInt16, count: UInt32, field: Int) -> Range<Int>? {
        guard let size = Self.typeSize(type) else { return nil }
        let length = size * Int(count)
        if length <= 4 { return field..<(field + length) }
        return unsigned(at: field, size: 4).map { Int($0)..<(Int($0) + length) }
    }

    /// The bytes at `range` of the structure, when they are at hand.
    private func slice(_ range: Range<Int>) -> ArraySlice<UInt8>? {
        guard range.lowerBound >= origin, range.upperBound - origin <= bytes.count else { return nil }
        let start = bytes.startIndex - origin
        return bytes[(start + range.lowerBound)..<(start + range.upperBound)]
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
