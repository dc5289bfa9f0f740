/// Cuts the byte stream a client receives from a camera into pieces, without ever holding a
/// photo in memory: control packets (responses, events, StartData...) come out whole, while a
/// Data or EndData packet comes out as its payload, piece by piece, as the bytes arrive.
///
/// `PTPIPPacketReader` waits for whole packets, which is right for a server reading small
/// requests; a camera may put a 30 MB photo into one EndData packet (Nikon does), and a tether
/// must write that straight to disk. Control packets are bounded by `maxControlPacketLength`
/// before their body is buffered; data packets are not bounded here, because their bytes are
/// handed on as they come: the data phase (``PTPIPDataPhase``) bounds the total.
///
/// Error behaviour is that of `PTPIPPacketReader`: a bad length field breaks the framing and the
/// reader stays failed; a well-framed control packet whose body fails to decode is skipped before
/// its error is thrown.
public struct PTPIPStreamReader: Sendable {
    /// One thing read from the stream.
    public enum Piece: Equatable, Sendable {
        /// A whole packet other than Data and EndData.
        case packet(PTPIPPacket)
        /// Payload bytes of a Data or EndData packet. Every such packet yields at least one piece
        /// (an empty one for an empty payload), and its last piece has `endsPacket` set.
        case data(DataPiece)
    }

    /// A run of payload bytes from one Data or EndData packet.
    public struct DataPiece: Equatable, Sendable {
        public var transactionID: UInt32
        /// Whether the packet is EndData (the data phase ends with it).
        public var isEndData: Bool
        public var bytes: [UInt8]
        /// Whether these are the packet's last bytes.
        public var endsPacket: Bool

        public init(transactionID: UInt32, isEndData: Bool, bytes: [UInt8], endsPacket: Bool) {
            self.transactionID = transactionID
            self.isEndData = isEndData
            self.bytes = bytes
            self.endsPacket = endsPacket
        }
    }

    /// Default bound of a control packet: far above any real one (an InitCommandAck with a long
    /// friendly name is the largest), far below what would hurt.
    public static let defaultMaxControlPacketLength: UInt32 = 64 * 1024
    /// Largest payload piece handed out at once.
    public static let maxPieceLength = 1 << 20
    /// A Data packet's fixed part: header plus transaction id.
    static let dataHeaderLength = PTPIPPacket.headerLength + 4

    public let maxControlPacketLength: UInt32
    public let policy: PTPIPDecoding

    private var queue = ByteQueue()
    private var framingError: PTPWireError?
    /// The data packet whose payload is being handed out, and how many of its bytes are left.
    private var openData: (transactionID: UInt32, isEndData: Bool, remaining: Int)?

    public init(
        maxControlPacketLength: UInt32 = PTPIPStreamReader.defaultMaxControlPacketLength,
        policy: PTPIPDecoding = .lenient
    ) {
        self.maxControlPacketLength = max(maxControlPacketLength, UInt32(PTPIPPacket.headerLength))
        self.policy = policy
    }

    /// Bytes received but not yet handed out.
    public var bufferedByteCount: Int { queue.count }

    /// Adds bytes as they arrive from the socket.
    public mutating func append<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        queue.append(bytes)
    }

    /// How many bytes to read from the socket next: what completes the current header or control
    /// packet, or what is left of the current data packet (at most a piece). At least 1.
    public var suggestedReadLength: Int {
        let available = bufferedByteCount
        if let openData { return max(1, min(openData.remaining - available, Self.maxPieceLength)) }
        guard available >= PTPIPPacket.headerLength else { return PTPIPPacket.headerLength - available }
        let length = queue.peekU32(at: 0)
        let type = queue.peekU32(at: 4)
        if Self.isDataType(type) { return max(1, Self.dataHeaderLength - available) }
        guard length >= UInt32(PTPIPPacket.headerLength), length <= maxControlPacketLength else { return 1 }
        return max(1, Int(length) - available)
    }

    /// The next piece, or nil when more bytes are needed.
    public mutating func next() throws(PTPWireError) -> Piece? {
        if let framingError { throw framingError }
        if let open = openData { return takePayload(open) }
        let available = bufferedByteCount
        guard available >= PTPIPPacket.headerLength else { return nil }
        let length = queue.peekU32(at: 0)
        let type = queue.peekU32(at: 4)
        if Self.isDataType(type) {
            guard length >= UInt32(Self.dataHeaderLength) else {
                return try fail(length < UInt32(PTPIPPacket.headerLength) ? .lengthTooSmall(length) : .dataPacketTooShort(length))
            }
            guard available >= Self.dataHeaderLength else { return nil }
            let transactionID = queue.peekU32(at: 8)
            queue.consume(Self.dataHeaderLength)
            let open = (transactionID, type == PTPIPPacketType.endData.rawValue, Int(length) - Self.dataHeaderLength)
            openData = open
            return takePayload(open)
        }
        if length < UInt32(PTPIPPacket.headerLength) { return try fail(.lengthTooSmall(length)) }
        if length > maxControlPacketLength { return try fail(.lengthTooLarge(length, limit: maxControlPacketLength)) }
        let packetLength = Int(length)
        guard available >= packetLength else { return nil }
        let body = queue.slice(PTPIPPacket.headerLength..<packetLength)
        queue.consume(packetLength)
        return .packet(try PTPIPPacket.decode(type: type, payload: body, policy: policy))
    }

    private mutating func takePayload(_ open: (transactionID: UInt32, isEndData: Bool, remaining: Int)) -> Piece? {
        let count = min(open.remaining, bufferedByteCount, Self.maxPieceLength)
        guard count > 0 || open.remaining == 0 else { return nil }
        let bytes = Array(queue.slice(0..<count))
        queue.consume(count)
        let remaining = open.remaining - count
        openData = remaining == 0 ? nil : (open.transactionID, open.isEndData, remaining)
        return .data(
            DataPiece(
                transactionID: open.transactionID, isEndData: open.isEndData, bytes: bytes,
                endsPacket: remaining == 0))
    }

    private mutating func fail(_ error: PTPWireError) throws(PTPWireError) -> Piece? {
        framingError = error
        throw error
    }

    private static func isDataType(_ type: UInt32) -> Bool {
        type == PTPIPPacketType.data.rawValue || type == PTPIPPacketType.endData.rawValue
    }
}
