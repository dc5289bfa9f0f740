/// Cuts a PTP/IP byte stream into packets, whatever way the bytes were split by the network.
///
/// The length field is checked as soon as its 8-byte header has arrived, before the body is
/// waited for, so a hostile length is refused without buffering it.
///
/// Error behaviour: a bad length field breaks the framing, so the reader stays failed and throws
/// the same error on every later call. A well-framed packet whose body fails to decode is skipped
/// before its error is thrown, so a caller may choose to continue.
public struct PTPIPPacketReader: Sendable {
    /// The default limit: a 64 MiB body plus the data packet's header and transaction id.
    public static let defaultMaxPacketLength: UInt32 = 64 * 1024 * 1024 + 12

    /// The largest packet (including its header) this reader accepts.
    public let maxPacketLength: UInt32

    private var queue = ByteQueue()
    private var framingError: PTPWireError?

    public init(maxPacketLength: UInt32 = PTPIPPacketReader.defaultMaxPacketLength) {
        self.maxPacketLength = max(maxPacketLength, UInt32(PTPIPPacket.headerLength))
    }

    /// Bytes received but not yet returned as packets.
    public var bufferedByteCount: Int { queue.count }

    /// Adds bytes as they arrive from the socket.
    public mutating func append<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        queue.append(bytes)
    }

    /// How many more bytes are needed before `nextPacket()` can return something (at least 1 when
    /// it would return nil), useful to size the next socket read. A length field out of bounds
    /// gives 0, so that a caller sizing its buffer with it never allocates what a hostile peer
    /// announced: `nextPacket()` then reports the error.
    public var bytesNeeded: Int {
        let available = bufferedByteCount
        guard available >= PTPIPPacket.headerLength else { return PTPIPPacket.headerLength - available }
        let length = queue.peekU32(at: 0)
        guard length >= UInt32(PTPIPPacket.headerLength), length <= maxPacketLength else { return 0 }
        return max(0, Int(length) - available)
    }

    /// The next complete packet, or nil when more bytes are needed.
    public mutating func nextPacket() throws(PTPWireError) -> PTPIPPacket? {
        if let framingError { throw framingError }
        let available = bufferedByteCount
        guard available >= PTPIPPacket.headerLength else { return nil }
        let length = queue.peekU32(at: 0)
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
        let type = queue.peekU32(at: 4)
        let body = queue.slice(PTPIPPacket.headerLength..<packetLength)
        queue.consume(packetLength)
        return try PTPIPPacket.decode(type: type, payload: body)
    }
}
