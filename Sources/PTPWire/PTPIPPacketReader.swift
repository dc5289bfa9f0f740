/// Cuts a PTP/IP byte stream into packets, whatever way the bytes were split by the network.
///
/// The length field is checked as soon as its 8-byte header has arrived, before the body is
/// waited for, so a hostile length is refused without buffering it. Consumed bytes are dropped by
/// moving a read index and compacting only once they make up most of the buffer, which keeps
/// multi-megabyte data packets linear in cost.
///
/// Error behaviour: a bad length field breaks the framing, so the reader stays failed and throws
/// the same error on every later call. A well-framed packet whose body fails to decode is skipped
/// before its error is thrown, so a caller may choose to continue.
public struct PTPIPPacketReader: Sendable {
    /// The default limit: a 64 MiB body plus the data packet's header and transaction id.
    public static let defaultMaxPacketLength: UInt32 = 64 * 1024 * 1024 + 12

    /// The largest packet (including its header) this reader accepts.
    public let maxPacketLength: UInt32

    private var buffer: [UInt8] = []
    private var readIndex = 0
    private var framingError: PTPWireError?

    public init(maxPacketLength: UInt32 = PTPIPPacketReader.defaultMaxPacketLength) {
        self.maxPacketLength = max(maxPacketLength, UInt32(PTPIPPacket.headerLength))
    }

    /// Bytes received but not yet returned as packets.
    public var bufferedByteCount: Int { buffer.count - readIndex }

    /// Adds bytes as they arrive from the socket.
    public mutating func append(_ bytes: [UInt8]) {
        compactIfWorthwhile()
        buffer.append(contentsOf: bytes)
    }

    /// Adds bytes as they arrive from the socket.
    public mutating func append<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        compactIfWorthwhile()
        buffer.append(contentsOf: bytes)
    }

    /// How many more bytes are needed before `nextPacket()` can return something (at least 1 when
    /// it would return nil), useful to size the next socket read. A length field out of bounds
    /// gives 0, so that a caller sizing its buffer with it never allocates what a hostile peer
    /// announced: `nextPacket()` then reports the error.
    public var bytesNeeded: Int {
        let available = bufferedByteCount
        guard available >= PTPIPPacket.headerLength else { return PTPIPPacket.headerLength - available }
        let length = peekU32(at: readIndex)
        guard length >= UInt32(PTPIPPacket.headerLength), length <= maxPacketLength else { return 0 }
        return max(0, Int(length) - available)
    }

    /// The next complete packet, or nil when more bytes are needed.
    public mutating func nextPacket() throws(PTPWireError) -> PTPIPPacket? {
        if let framingError { throw framingError }
        let available = bufferedByteCount
        guard available >= PTPIPPacket.headerLength else { return nil }
        let length = peekU32(at: readIndex)
        if length < UInt32(PTPIPPacket.headerLength) {
            framingError = .lengthTooSmall(length)
            throw .lengthTooSmall(length)
        }
        if length > maxPacketLength {
            framingError = .lengthTooLarge(length, limit: maxPacketLength)
            throw .lengthTooLarge(length, limit: maxPacketLength)
        }
        let packetLength = Int(length)
        guard available >= packetLength else { return nil }
        let type = peekU32(at: readIndex + 4)
        let body = buffer[(readIndex + PTPIPPacket.headerLength)..<(readIndex + packetLength)]
        readIndex += packetLength
        return try PTPIPPacket.decode(type: type, payload: body)
    }

    private func peekU32(at index: Int) -> UInt32 {
        UInt32(buffer[index]) | UInt32(buffer[index + 1]) << 8
            | UInt32(buffer[index + 2]) << 16 | UInt32(buffer[index + 3]) << 24
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
