import PTPWire

/// A camera that breaks the protocol on purpose (`--hostile MODE`), so that the reliability
/// suite can show relay reporting it, reconnecting, and never writing outside its spool.
public enum SimHostility: String, CaseIterable, Sendable {
    /// The OperationResponse to GetObjectInfo claims a length of almost 4 GiB.
    case oversizedLength = "oversized-length"
    /// The data phase of GetObjectInfo stops in the middle of a packet and the camera hangs up.
    case truncatedPacket = "truncated-packet"
    /// The OperationResponse to GetObjectInfo carries another transaction's id.
    case wrongTransaction = "wrong-transaction"
    /// DeviceInfo ends in the middle of its last string.
    case malformedStrings = "malformed-strings"
    /// Photos are named with 250 letters and .JPG (the longest a PTP string holds is 254).
    case longName = "long-name"
    /// Photos are named `../../x.jpg`.
    case traversalName = "traversal-name"
    /// Photo data phases carry 64 bytes more than StartData announced.
    case overlongData = "overlong-data"

    /// The file name this mode gives every photo, if it renames them.
    var fileName: String? {
        switch self {
        case .longName: return String(repeating: "A", count: 250) + ".JPG"
        case .traversalName: return "../../x.jpg"
        default: return nil
        }
    }

    /// Bytes of DeviceInfo as this mode sends it.
    func deviceInfo(_ bytes: [UInt8]) -> [UInt8] {
        self == .malformedStrings ? Array(bytes.dropLast(5)) : bytes
    }

    /// The reply as this mode changes it, for GetObjectInfo.
    func objectInfo(_ reply: SimReply) -> SimReply {
        guard let name = fileName, case .bytes(let bytes) = reply.data, var info = try? PTPObjectInfo(decoding: bytes) else {
            return reply
        }
        info.filename = name
        var renamed = reply
        renamed.data = .bytes(info.encoded())
        return renamed
    }
}
