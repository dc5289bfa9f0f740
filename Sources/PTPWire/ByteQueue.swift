/// Bytes received from a socket and not yet consumed, for the two packet readers.
///
/// Consumed bytes are dropped by moving a read index and compacting only once they make up most
/// of the buffer, which keeps multi-megabyte packets linear in cost.
struct ByteQueue: Sendable {
    private var buffer: [UInt8] = []
    private var readIndex = 0

    /// Bytes not yet consumed.
    var count: Int { buffer.count - readIndex }

    mutating func append<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        compactIfWorthwhile()
        buffer.append(contentsOf: bytes)
    }

    /// The little-endian u32 at `offset` from the first unconsumed byte (`offset + 4 <= count`).
    func peekU32(at offset: Int) -> UInt32 {
        let index = readIndex + offset
        return UInt32(buffer[index]) | UInt32(buffer[index + 1]) << 8
            | UInt32(buffer[index + 2]) << 16 | UInt32(buffer[index + 3]) << 24
    }

    /// The unconsumed bytes `range` (relative to the first unconsumed byte), without copying.
    func slice(_ range: Range<Int>) -> ArraySlice<UInt8> {
        buffer[(readIndex + range.lowerBound)..<(readIndex + range.upperBound)]
    }

    /// Marks `count` bytes consumed.
    mutating func consume(_ count: Int) {
        readIndex += count
    }

    private mutating func compactIfWorthwhile() {
        guard readIndex > 0 else { return }
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            readIndex = 0
        } else if readIndex >= 4096 && readIndex * 2 >= buffer.count {
            buffer.removeSubrange(0..<readIndex)
            readIndex = 0
        }
    }
}
