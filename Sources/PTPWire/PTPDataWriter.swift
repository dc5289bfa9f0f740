/// Builds little-endian PTP and PTP/IP byte layouts.
///
/// Appending never fails: values that cannot be represented (over-long strings) are clipped in a
/// documented way so encoders stay total functions.
public struct PTPDataWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// The number of bytes written so far.
    public var count: Int { bytes.count }

    public mutating func appendU8(_ value: UInt8) {
        bytes.append(value)
    }

    public mutating func appendU16(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    }

    public mutating func appendU32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift)))
        }
    }

    public mutating func appendU64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }

    public mutating func appendBytes<S: Sequence>(_ other: S) where S.Element == UInt8 {
        bytes.append(contentsOf: other)
    }

    /// Appends `count` zero bytes (reserved or padding fields).
    public mutating func appendZeros(_ count: Int) {
        guard count > 0 else { return }
        bytes.append(contentsOf: repeatElement(0, count: count))
    }

    /// Appends a PTP string: u8 count of UTF-16 units including the NUL, then UTF-16LE.
    ///
    /// The count byte caps a string at 254 units plus NUL; longer text is clipped there (never in
    /// the middle of a surrogate pair). The empty string is the single byte 0.
    public mutating func appendString(_ string: String) {
        var units = Array(string.utf16.prefix(while: { $0 != 0 }))
        if units.count > 254 {
            units.removeLast(units.count - 254)
            if let last = units.last, UTF16.isLeadSurrogate(last) { units.removeLast() }
        }
        guard !units.isEmpty else {
            appendU8(0)
            return
        }
        appendU8(UInt8(units.count + 1))
        for unit in units { appendU16(unit) }
        appendU16(0)
    }

    /// Appends UTF-16LE text and a NUL without a length prefix (PTP/IP friendly names).
    public mutating func appendNULTerminatedUTF16(_ string: String) {
        for unit in string.utf16 where unit != 0 { appendU16(unit) }
        appendU16(0)
    }

    /// Appends a PTP array of u16: u32 count, then the elements.
    public mutating func appendArrayU16(_ values: [UInt16]) {
        appendU32(UInt32(truncatingIfNeeded: values.count))
        for value in values { appendU16(value) }
    }

    /// Appends a PTP array of u32: u32 count, then the elements.
    public mutating func appendArrayU32(_ values: [UInt32]) {
        appendU32(UInt32(truncatingIfNeeded: values.count))
        for value in values { appendU32(value) }
    }

    /// Overwrites a u32 already written at `offset` (length fields known only at the end).
    public mutating func setU32(_ value: UInt32, at offset: Int) {
        precondition(offset >= 0 && offset + 4 <= bytes.count, "setU32 outside written bytes")
        for index in 0..<4 {
            bytes[offset + index] = UInt8(truncatingIfNeeded: value >> UInt32(index * 8))
        }
    }
}
