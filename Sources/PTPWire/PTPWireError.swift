/// Why bytes from a camera (or a client) could not be decoded.
///
/// Every decoder in PTPWire reports bad input through this type instead of trapping, so a broken or
/// hostile peer can only ever cost one connection, never the process.
public enum PTPWireError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The input ended before a field: `needed` bytes were required, `available` were left.
    case truncated(needed: Int, available: Int)
    /// A PTP/IP length field smaller than the 8-byte header it must include.
    case lengthTooSmall(UInt32)
    /// A Data or EndData packet too short to hold its transaction id.
    case dataPacketTooShort(UInt32)
    /// A PTP/IP length field above the configured limit (refused before buffering anything).
    case lengthTooLarge(UInt32, limit: UInt32)
    /// A PTP/IP packet type this codec does not know.
    case unknownPacketType(UInt32)
    /// A string field whose bytes cannot form UTF-16 text (odd byte count).
    case malformedString
    /// An array count above the decoder's limit (refused before allocating).
    case arrayTooLong(count: UInt32, limit: Int)
    /// An operation, response or event with more parameters than PTP allows.
    case tooManyParameters(count: Int, limit: Int)
    /// A parameter block whose length is not a multiple of 4.
    case misalignedParameters(byteCount: Int)
    /// A fixed-layout packet carrying bytes after its last field.
    case trailingBytes(packetType: UInt32, count: Int)
    /// A Canon event record whose size field is below its own 8-byte header.
    case recordTooSmall(offset: Int, size: UInt32)
    /// A Canon event record extending past the end of the data.
    case recordOutOfBounds(offset: Int, size: UInt32, available: Int)
    /// A data phase received a packet that does not belong at this point (e.g. Data before StartData).
    case unexpectedPacket(expected: String, got: PTPIPPacketType)
    /// A data-phase packet carrying another transaction's id.
    case transactionMismatch(expected: UInt32, got: UInt32)
    /// A data phase larger than the caller's limit (refused before buffering).
    case dataPhaseTooLarge(length: UInt64, limit: Int)
    /// A data phase whose bytes do not add up to StartData's declared total.
    case dataLengthMismatch(declared: UInt64, received: UInt64)
    /// A property description whose data type is not an integer (strings and arrays are not read).
    case unsupportedDataType(UInt16)

    public var description: String {
        switch self {
        case .truncated(let needed, let available):
            return "PTP data truncated: needed \(needed) bytes, only \(available) left"
        case .lengthTooSmall(let length):
            return "PTP/IP packet length \(length) is smaller than the 8-byte header"
        case .dataPacketTooShort(let length):
            return "PTP/IP data packet length \(length) is below the 12 bytes of its header and transaction id"
        case .lengthTooLarge(let length, let limit):
            return "PTP/IP packet length \(length) exceeds the limit of \(limit) bytes"
        case .unknownPacketType(let type):
            return "unknown PTP/IP packet type \(type)"
        case .malformedString:
            return "malformed UTF-16 string in PTP data"
        case .arrayTooLong(let count, let limit):
            return "PTP array count \(count) exceeds the limit of \(limit) elements"
        case .tooManyParameters(let count, let limit):
            return "PTP container has \(count) parameters, at most \(limit) allowed"
        case .misalignedParameters(let byteCount):
            return "PTP parameter block of \(byteCount) bytes is not a multiple of 4"
        case .trailingBytes(let packetType, let count):
            return "PTP/IP packet type \(packetType) has \(count) unexpected bytes after its fields"
        case .recordTooSmall(let offset, let size):
            return "Canon event record at offset \(offset) has size \(size), below the 8-byte minimum"
        case .recordOutOfBounds(let offset, let size, let available):
            return "Canon event record at offset \(offset) of size \(size) runs past the data (\(available) bytes left)"
        case .unexpectedPacket(let expected, let got):
            return "PTP/IP data phase expected \(expected) but received \(got)"
        case .transactionMismatch(let expected, let got):
            return "PTP/IP packet for transaction \(got) arrived during transaction \(expected)"
        case .dataPhaseTooLarge(let length, let limit):
            return "PTP/IP data phase of \(length) bytes exceeds the limit of \(limit) bytes"
        case .dataLengthMismatch(let declared, let received):
            return "PTP/IP data phase declared \(declared) bytes but carried \(received)"
        case .unsupportedDataType(let type):
            return "PTP property data type 0x\(String(type, radix: 16)) is not an integer type"
        }
    }
}
