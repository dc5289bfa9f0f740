/// The rules of one data phase from the camera (StartData, any number of Data, EndData), checked
/// piece by piece as ``PTPIPStreamReader`` hands the payload out, so that the bytes can go straight
/// to a file.
///
/// Vendors split the same payload differently (Nikon: everything in EndData; Canon: Data packets
/// and an empty EndData), so every split is accepted. The declared total is checked against the
/// caller's limit before any payload arrives, every piece against the limit and the declared
/// total, and the end against the declared total.
public struct PTPIPDataPhase: Sendable {
    public let transactionID: UInt32
    /// The most bytes this phase may carry.
    public let maxLength: Int

    private var declaredLength: UInt64?
    public private(set) var receivedByteCount = 0
    /// Whether EndData's last byte has been accepted.
    public private(set) var isFinished = false

    public init(transactionID: UInt32, maxLength: Int) {
        self.transactionID = transactionID
        self.maxLength = max(0, maxLength)
    }

    /// Whether StartData has arrived.
    public var hasStarted: Bool { declaredLength != nil }

    /// StartData's total, nil before it arrives or when the camera declared it unknown.
    public var expectedByteCount: UInt64? {
        guard let declaredLength, declaredLength != PTPIPPacket.unknownTotalLength else { return nil }
        return declaredLength
    }

    /// Takes StartData.
    public mutating func start(transactionID id: UInt32, totalLength: UInt64) throws(PTPWireError) {
        guard !isFinished else { throw .unexpectedPacket(expected: "no packet after EndData", got: .startData) }
        guard declaredLength == nil else { throw .unexpectedPacket(expected: "Data or EndData", got: .startData) }
        try checkTransaction(id)
        if totalLength != PTPIPPacket.unknownTotalLength, totalLength > UInt64(maxLength) {
            throw .dataPhaseTooLarge(length: totalLength, limit: maxLength)
        }
        declaredLength = totalLength
    }

    /// Takes payload bytes of a Data or EndData packet; returns true when they end the phase
    /// (the last piece of EndData).
    @discardableResult
    public mutating func accept(_ piece: PTPIPStreamReader.DataPiece) throws(PTPWireError) -> Bool {
        let type: PTPIPPacketType = piece.isEndData ? .endData : .data
        guard !isFinished else { throw .unexpectedPacket(expected: "no packet after EndData", got: type) }
        guard declaredLength != nil else { throw .unexpectedPacket(expected: "StartData", got: type) }
        try checkTransaction(piece.transactionID)
        let total = UInt64(receivedByteCount) + UInt64(piece.bytes.count)
        guard total <= UInt64(maxLength) else { throw .dataPhaseTooLarge(length: total, limit: maxLength) }
        if let expected = expectedByteCount, total > expected {
            throw .dataLengthMismatch(declared: expected, received: total)
        }
        receivedByteCount = Int(total)
        guard piece.isEndData && piece.endsPacket else { return false }
        isFinished = true
        if let expected = expectedByteCount, expected != total {
            throw .dataLengthMismatch(declared: expected, received: total)
        }
        return true
    }

    /// A packet that is not part of a data phase arrived while one was open.
    public func unexpected(_ type: PTPIPPacketType) -> PTPWireError {
        .unexpectedPacket(expected: hasStarted ? "Data or EndData" : "StartData", got: type)
    }

    private func checkTransaction(_ id: UInt32) throws(PTPWireError) {
        guard id == transactionID else { throw .transactionMismatch(expected: transactionID, got: id) }
    }
}
