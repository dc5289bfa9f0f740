/// Collects one data phase from the camera (StartData, any number of Data, EndData) into a payload.
///
/// Vendors split the same payload differently (Nikon: everything in EndData; Canon: Data packets and
/// an empty EndData), so every split is accepted. The declared total is checked against the
/// caller's limit before anything is buffered and against the bytes actually received at the end.
public struct PTPIPDataPhaseAssembler: Sendable {
    public let transactionID: UInt32
    /// The most bytes this phase may carry.
    public let maxLength: Int

    private var declaredLength: UInt64?
    private var payload: [UInt8] = []
    private var finished = false

    public init(transactionID: UInt32, maxLength: Int) {
        self.transactionID = transactionID
        self.maxLength = max(0, maxLength)
    }

    /// Bytes received so far.
    public var receivedByteCount: Int { payload.count }

    /// StartData's total, nil before it arrives or when the camera declared it unknown.
    public var expectedByteCount: UInt64? {
        guard let declaredLength, declaredLength != PTPIPPacket.unknownTotalLength else { return nil }
        return declaredLength
    }

    /// Takes the next packet of the phase; returns the whole payload once EndData has arrived.
    public mutating func accept(_ packet: PTPIPPacket) throws(PTPWireError) -> [UInt8]? {
        guard !finished else { throw .unexpectedPacket(expected: "no packet after EndData", got: packet.type) }
        switch packet {
        case let .startData(id, total):
            guard declaredLength == nil else { throw .unexpectedPacket(expected: "Data or EndData", got: .startData) }
            try checkTransaction(id)
            if total != PTPIPPacket.unknownTotalLength {
                guard total <= UInt64(maxLength) else { throw .dataPhaseTooLarge(length: total, limit: maxLength) }
                // Reserve at most 16 MiB up front: a declared total is a claim, not bytes received.
                payload.reserveCapacity(Int(min(total, 16 << 20)))
            }
            declaredLength = total
            return nil
        case let .data(id, bytes):
            try appendChunk(id, bytes, type: .data)
            return nil
        case let .endData(id, bytes):
            try appendChunk(id, bytes, type: .endData)
            finished = true
            if let expected = expectedByteCount, expected != UInt64(payload.count) {
                throw .dataLengthMismatch(declared: expected, received: UInt64(payload.count))
            }
            return payload
        default:
            throw .unexpectedPacket(expected: declaredLength == nil ? "StartData" : "Data or EndData", got: packet.type)
        }
    }

    private func checkTransaction(_ id: UInt32) throws(PTPWireError) {
        guard id == transactionID else { throw .transactionMismatch(expected: transactionID, got: id) }
    }

    private mutating func appendChunk(_ id: UInt32, _ bytes: [UInt8], type: PTPIPPacketType) throws(PTPWireError) {
        guard declaredLength != nil else { throw .unexpectedPacket(expected: "StartData", got: type) }
        try checkTransaction(id)
        let total = UInt64(payload.count) + UInt64(bytes.count)
        guard total <= UInt64(maxLength) else { throw .dataPhaseTooLarge(length: total, limit: maxLength) }
        if let expected = expectedByteCount, total > expected {
            throw .dataLengthMismatch(declared: expected, received: total)
        }
        payload.append(contentsOf: bytes)
    }
}
