/// Reads little-endian PTP fields from bytes, checking every length against what is left.
///
/// Arrays and byte runs are bounded by the remaining input (and an element limit) before any
/// allocation, so a hostile count costs nothing.
public struct PTPDataReader: Sendable {
    /// The default maximum element count accepted for a PTP array.
    public static let defaultArrayLimit = 1 << 20

    private let bytes: ArraySlice<UInt8>
    private let end: Int
    private var position: Int

    /// Reads `bytes` from `offset` to the end.
    public init(_ bytes: [UInt8], offset: Int = 0) {
        self.init(bytes[...])
        position = min(max(0, offset), bytes.count)
    }

    /// Reads a slice in place (no copy); offsets count from the slice's start.
    public init(_ slice: ArraySlice<UInt8>) {
        bytes = slice
        end = slice.endIndex
        position = slice.startIndex
    }

    /// How many bytes have been read (relative to the start of the input).
    public var offset: Int { position - bytes.startIndex }

    /// Bytes not yet read.
    public var remaining: Int { end - position }

    /// Whether every byte has been read.
    public var isAtEnd: Bool { position >= end }

    private func require(_ count: Int) throws(PTPWireError) {
        guard count <= remaining else {
            throw .truncated(needed: count, available: remaining)
        }
    }

    public mutating func readU8() throws(PTPWireError) -> UInt8 {
        try require(1)
        defer { position += 1 }
        return bytes[position]
    }

    public mutating func readU16() throws(PTPWireError) -> UInt16 {
        try require(2)
        defer { position += 2 }
        return UInt16(bytes[position]) | UInt16(bytes[position + 1]) << 8
    }

    /// The next u16 without reading it.
    public func peekU16() throws(PTPWireError) -> UInt16 {
        try require(2)
        return UInt16(bytes[position]) | UInt16(bytes[position + 1]) << 8
    }

    public mutating func readU32() throws(PTPWireError) -> UInt32 {
        try require(4)
        var value: UInt32 = 0
        for index in 0..<4 { value |= UInt32(bytes[position + index]) << UInt32(index * 8) }
        position += 4
        return value
    }

    public mutating func readU64() throws(PTPWireError) -> UInt64 {
        try require(8)
        var value: UInt64 = 0
        for index in 0..<8 { value |= UInt64(bytes[position + index]) << UInt64(index * 8) }
        position += 8
        return value
    }

    /// Reads `count` raw bytes.
    public mutating func readBytes(_ count: Int) throws(PTPWireError) -> [UInt8] {
        guard count >= 0 else { throw .truncated(needed: count, available: remaining) }
        try require(count)
        defer { position += count }
        return Array(bytes[position..<position + count])
    }

    /// Reads everything that is left.
    public mutating func readRemaining() -> [UInt8] {
        defer { position = end }
        return Array(bytes[position..<end])
    }

    /// Skips `count` bytes.
    public mutating func skip(_ count: Int) throws(PTPWireError) {
        guard count >= 0 else { throw .truncated(needed: count, available: remaining) }
        try require(count)
        position += count
    }

    /// Reads a PTP string (u8 unit count including NUL, then UTF-16LE).
    ///
    /// The count includes the NUL, so the text is at most count − 1 units and stops at the first
    /// NUL. Invalid UTF-16 is repaired with U+FFFD rather than rejected, because cameras ship odd
    /// serial numbers and a whole DeviceInfo should not be lost to one of them.
    public mutating func readString() throws(PTPWireError) -> String {
        let count = Int(try readU8())
        guard count > 0 else { return "" }
        try require(count * 2)
        var units: [UInt16] = []
        units.reserveCapacity(count)
        for _ in 0..<count { units.append(try readU16()) }
        return Self.text(fromUTF16: units.dropLast())
    }

    /// Reads a PTP array of u16 (u32 count, then elements), at most `limit` elements.
    public mutating func readArrayU16(limit: Int = PTPDataReader.defaultArrayLimit) throws(PTPWireError) -> [UInt16] {
        let count = try readArrayCount(elementSize: 2, limit: limit)
        var values: [UInt16] = []
        values.reserveCapacity(count)
        for _ in 0..<count { values.append(try readU16()) }
        return values
    }

    /// Reads a PTP array of u32 (u32 count, then elements), at most `limit` elements.
    public mutating func readArrayU32(limit: Int = PTPDataReader.defaultArrayLimit) throws(PTPWireError) -> [UInt32] {
        let count = try readArrayCount(elementSize: 4, limit: limit)
        var values: [UInt32] = []
        values.reserveCapacity(count)
        for _ in 0..<count { values.append(try readU32()) }
        return values
    }

    private mutating func readArrayCount(elementSize: Int, limit: Int) throws(PTPWireError) -> Int {
        let start = position
        let raw = try readU32()
        guard UInt64(raw) <= UInt64(max(0, limit)) else {
            position = start
            throw .arrayTooLong(count: raw, limit: limit)
        }
        let count = Int(raw)
        let needed = count * elementSize
        guard needed <= remaining else {
            let available = remaining
            position = start
            throw .truncated(needed: needed, available: available)
        }
        return count
    }

    /// Decodes UTF-16 units up to the first NUL, repairing invalid sequences.
    static func text<C: Collection>(fromUTF16 units: C) -> String where C.Element == UInt16 {
        let content = units.prefix(while: { $0 != 0 })
        return String(decoding: content, as: UTF16.self)
    }
}
