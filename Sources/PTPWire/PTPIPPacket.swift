/// The PTP/IP packet type field (CIPA DC-X005).
public enum PTPIPPacketType: UInt32, Sendable, CaseIterable, CustomStringConvertible {
    case initCommandRequest = 1
    case initCommandAck = 2
    case initEventRequest = 3
    case initEventAck = 4
    case initFail = 5
    case operationRequest = 6
    case operationResponse = 7
    case event = 8
    case startData = 9
    case data = 10
    case cancel = 11
    case endData = 12
    case probeRequest = 13
    case probeResponse = 14

    public var description: String { "\(name) (\(rawValue))" }

    private var name: String {
        switch self {
        case .initCommandRequest: return "InitCommandRequest"
        case .initCommandAck: return "InitCommandAck"
        case .initEventRequest: return "InitEventRequest"
        case .initEventAck: return "InitEventAck"
        case .initFail: return "InitFail"
        case .operationRequest: return "OperationRequest"
        case .operationResponse: return "OperationResponse"
        case .event: return "Event"
        case .startData: return "StartData"
        case .data: return "Data"
        case .cancel: return "Cancel"
        case .endData: return "EndData"
        case .probeRequest: return "ProbeRequest"
        case .probeResponse: return "ProbeResponse"
        }
    }
}

/// How strictly packet bodies are decoded (see ``PTPIPPacket``).
public enum PTPIPDecoding: Sendable, Equatable {
    /// Every byte must belong to a field: for our own peers (the simulator reading a client).
    case strict
    /// Extra bytes and parameters are dropped, as libgphoto2 does: for cameras, whose firmware
    /// is sloppy (e.g. an OperationResponse whose parameter bytes are not a multiple of 4).
    case lenient
}

/// One PTP/IP packet, without its 8-byte `{length, type}` header.
///
/// Decoding policy (``PTPIPDecoding``): strictly, fixed-layout packets with bytes after their last
/// field, parameter blocks that are not a multiple of 4 bytes, and more parameters than PTP allows
/// (5, events 3) are typed errors, so that framing bugs in our own peers show. Leniently, as
/// libgphoto2 reads real bodies, those extra bytes and parameters are dropped. Friendly names are
/// read up to their NUL (a missing NUL is tolerated) either way.
public enum PTPIPPacket: Equatable, Sendable {
    case initCommandRequest(guid: [UInt8], friendlyName: String, protocolVersion: UInt32)
    case initCommandAck(connectionNumber: UInt32, guid: [UInt8], friendlyName: String, protocolVersion: UInt32)
    case initEventRequest(connectionNumber: UInt32)
    case initEventAck
    /// Reason: 1 rejected, 2 busy, 3 unspecified (some Fuji bodies send PTP response codes).
    case initFail(reason: UInt32)
    case operationRequest(PTPOperationRequest)
    case operationResponse(PTPOperationResponse)
    case event(PTPEvent)
    /// `totalLength` all ones means unknown.
    case startData(transactionID: UInt32, totalLength: UInt64)
    case data(transactionID: UInt32, payload: [UInt8])
    case cancel(transactionID: UInt32)
    /// The last data packet; its payload may be empty.
    case endData(transactionID: UInt32, payload: [UInt8])
    case probeRequest
    case probeResponse

    /// Size of the `{u32 length, u32 type}` header every packet starts with.
    public static let headerLength = 8
    /// The protocol version 1.0 as sent in the init packets.
    public static let protocolVersion1_0: UInt32 = 0x0001_0000
    /// `totalLength` value meaning "unknown" in StartData.
    public static let unknownTotalLength = UInt64.max
    /// Length of the GUID in the init packets.
    public static let guidLength = 16

    /// The packet's type field.
    public var type: PTPIPPacketType {
        switch self {
        case .initCommandRequest: return .initCommandRequest
        case .initCommandAck: return .initCommandAck
        case .initEventRequest: return .initEventRequest
        case .initEventAck: return .initEventAck
        case .initFail: return .initFail
        case .operationRequest: return .operationRequest
        case .operationResponse: return .operationResponse
        case .event: return .event
        case .startData: return .startData
        case .data: return .data
        case .cancel: return .cancel
        case .endData: return .endData
        case .probeRequest: return .probeRequest
        case .probeResponse: return .probeResponse
        }
    }

    /// The full packet including its header, ready to write to a socket.
    ///
    /// A GUID is padded or clipped to 16 bytes; parameters beyond the PTP maximum are dropped.
    public func encoded() -> [UInt8] {
        var writer = PTPDataWriter(capacity: Self.headerLength + 32 + payloadCapacityHint)
        writer.appendU32(0)
        writer.appendU32(type.rawValue)
        switch self {
        case .initCommandRequest(let guid, let friendlyName, let protocolVersion):
            Self.appendGUID(guid, to: &writer)
            writer.appendNULTerminatedUTF16(friendlyName)
            writer.appendU32(protocolVersion)
        case .initCommandAck(let connectionNumber, let guid, let friendlyName, let protocolVersion):
            writer.appendU32(connectionNumber)
            Self.appendGUID(guid, to: &writer)
            writer.appendNULTerminatedUTF16(friendlyName)
            writer.appendU32(protocolVersion)
        case .initEventRequest(let connectionNumber):
            writer.appendU32(connectionNumber)
        case .initEventAck, .probeRequest, .probeResponse:
            break
        case .initFail(let reason):
            writer.appendU32(reason)
        case .operationRequest(let request):
            writer.appendU32(request.dataPhase)
            writer.appendU16(request.code.rawValue)
            writer.appendU32(request.transactionID)
            for parameter in request.parameters.prefix(PTPOperationRequest.maxParameters) {
                writer.appendU32(parameter)
            }
        case .operationResponse(let response):
            writer.appendU16(response.code.rawValue)
            writer.appendU32(response.transactionID)
            for parameter in response.parameters.prefix(PTPOperationResponse.maxParameters) {
                writer.appendU32(parameter)
            }
        case .event(let event):
            writer.appendU16(event.code.rawValue)
            writer.appendU32(event.transactionID)
            for parameter in event.parameters.prefix(PTPEvent.maxParameters) {
                writer.appendU32(parameter)
            }
        case .startData(let transactionID, let totalLength):
            writer.appendU32(transactionID)
            writer.appendU64(totalLength)
        case .data(let transactionID, let payload), .endData(let transactionID, let payload):
            writer.appendU32(transactionID)
            writer.appendBytes(payload)
        case .cancel(let transactionID):
            writer.appendU32(transactionID)
        }
        writer.setU32(UInt32(truncatingIfNeeded: writer.count), at: 0)
        return writer.bytes
    }

    private var payloadCapacityHint: Int {
        switch self {
        case .data(_, let payload), .endData(_, let payload): return payload.count
        default: return 0
        }
    }

    private static func appendGUID(_ guid: [UInt8], to writer: inout PTPDataWriter) {
        writer.appendBytes(guid.prefix(guidLength))
        writer.appendZeros(guidLength - min(guid.count, guidLength))
    }

    /// Decodes a packet body given the header's type field.
    public static func decode(
        type rawType: UInt32, payload: [UInt8],
        policy: PTPIPDecoding = .strict
    ) throws(PTPWireError) -> PTPIPPacket {
        try decode(type: rawType, payload: payload[...], policy: policy)
    }

    /// Decodes a packet body given the header's type field (only a data payload is copied).
    public static func decode(
        type rawType: UInt32, payload: ArraySlice<UInt8>,
        policy: PTPIPDecoding = .strict
    ) throws(PTPWireError) -> PTPIPPacket {
        guard let type = PTPIPPacketType(rawValue: rawType) else {
            throw .unknownPacketType(rawType)
        }
        var reader = PTPDataReader(payload)
        let packet = try decodeFields(type, reader: &reader, policy: policy)
        guard reader.isAtEnd || policy == .lenient else {
            throw .trailingBytes(packetType: rawType, count: reader.remaining)
        }
        return packet
    }

    private static func decodeFields(
        _ type: PTPIPPacketType, reader: inout PTPDataReader,
        policy: PTPIPDecoding
    ) throws(PTPWireError) -> PTPIPPacket {
        switch type {
        case .initCommandRequest:
            let guid = try reader.readBytes(guidLength)
            let (name, version) = try readNameAndVersion(&reader)
            return .initCommandRequest(guid: guid, friendlyName: name, protocolVersion: version)
        case .initCommandAck:
            let connection = try reader.readU32()
            let guid = try reader.readBytes(guidLength)
            let (name, version) = try readNameAndVersion(&reader)
            return .initCommandAck(connectionNumber: connection, guid: guid, friendlyName: name, protocolVersion: version)
        case .initEventRequest:
            return .initEventRequest(connectionNumber: try reader.readU32())
        case .initEventAck:
            return .initEventAck
        case .initFail:
            return .initFail(reason: try reader.readU32())
        case .operationRequest:
            let phase = try reader.readU32()
            let code = PTPOperationCode(try reader.readU16())
            let transactionID = try reader.readU32()
            let parameters = try readParameters(&reader, limit: PTPOperationRequest.maxParameters, policy: policy)
            return .operationRequest(
                PTPOperationRequest(dataPhase: phase, code: code, transactionID: transactionID, parameters: parameters))
        case .operationResponse:
            let code = PTPResponseCode(try reader.readU16())
            let transactionID = try reader.readU32()
            let parameters = try readParameters(&reader, limit: PTPOperationResponse.maxParameters, policy: policy)
            return .operationResponse(PTPOperationResponse(code: code, transactionID: transactionID, parameters: parameters))
        case .event:
            let code = PTPEventCode(try reader.readU16())
            let transactionID = try reader.readU32()
            let parameters = try readParameters(&reader, limit: PTPEvent.maxParameters, policy: policy)
            return .event(PTPEvent(code: code, transactionID: transactionID, parameters: parameters))
        case .startData:
            let transactionID = try reader.readU32()
            return .startData(transactionID: transactionID, totalLength: try reader.readU64())
        case .cancel:
            return .cancel(transactionID: try reader.readU32())
        case .probeRequest:
            return .probeRequest
        case .probeResponse:
            return .probeResponse
        case .data, .endData:
            let transactionID = try reader.readU32()
            let body = reader.readRemaining()
            return type == .data
                ? .data(transactionID: transactionID, payload: body) : .endData(transactionID: transactionID, payload: body)
        }
    }

    /// The name runs from here to 4 bytes before the end (the version is last), up to its NUL.
    private static func readNameAndVersion(_ reader: inout PTPDataReader) throws(PTPWireError) -> (String, UInt32) {
        let nameLength = reader.remaining - 4
        guard nameLength >= 0 else { throw .truncated(needed: 4, available: reader.remaining) }
        guard nameLength % 2 == 0 else { throw .malformedString }
        let nameBytes = try reader.readBytes(nameLength)
        var units: [UInt16] = []
        units.reserveCapacity(nameLength / 2)
        var index = 0
        while index + 1 < nameBytes.count {
            units.append(UInt16(nameBytes[index]) | UInt16(nameBytes[index + 1]) << 8)
            index += 2
        }
        let version = try reader.readU32()
        return (PTPDataReader.text(fromUTF16: units), version)
    }

    /// Reads the parameter block; leniently, leftover bytes and parameters beyond `limit` are
    /// left unread (the caller then ignores them).
    private static func readParameters(
        _ reader: inout PTPDataReader, limit: Int,
        policy: PTPIPDecoding
    ) throws(PTPWireError) -> [UInt32] {
        let byteCount = reader.remaining
        if policy == .strict {
            guard byteCount % 4 == 0 else { throw .misalignedParameters(byteCount: byteCount) }
            guard byteCount / 4 <= limit else { throw .tooManyParameters(count: byteCount / 4, limit: limit) }
        }
        let count = min(byteCount / 4, limit)
        var parameters: [UInt32] = []
        parameters.reserveCapacity(count)
        for _ in 0..<count { parameters.append(try reader.readU32()) }
        return parameters
    }

    /// The packets of a data phase: StartData, Data packets of at most `chunkSize` bytes, and an
    /// EndData carrying the last chunk (empty when `payload` is empty).
    public static func dataPhase(transactionID: UInt32, payload: [UInt8], chunkSize: Int = 1 << 20) -> [PTPIPPacket] {
        let chunk = max(1, chunkSize)
        var packets: [PTPIPPacket] = [.startData(transactionID: transactionID, totalLength: UInt64(payload.count))]
        var offset = 0
        while payload.count - offset > chunk {
            packets.append(.data(transactionID: transactionID, payload: Array(payload[offset..<offset + chunk])))
            offset += chunk
        }
        packets.append(.endData(transactionID: transactionID, payload: Array(payload[offset...])))
        return packets
    }
}
