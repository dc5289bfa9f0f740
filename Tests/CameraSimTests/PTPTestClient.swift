import Foundation
import PTPWire
import SocketIO

/// A minimal PTP/IP client for talking to the simulator directly in tests: the handshake, one
/// transaction at a time, events from the event channel. Deliberately separate from the tether's
/// client so that the two check each other.
final class PTPTestClient {
    let command: TCPConnection
    private(set) var event: TCPConnection?
    private var commandReader = PTPIPPacketReader()
    private var eventReader = PTPIPPacketReader()
    private var nextTransactionID: UInt32 = 0
    private(set) var connectionNumber: UInt32 = 0
    static let timeout = 30.0

    enum ClientError: Error, CustomStringConvertible {
        case closed(String)
        case unexpected(PTPIPPacket)

        var description: String {
            switch self {
            case let .closed(what): return "connection closed \(what)"
            case let .unexpected(packet): return "unexpected packet \(packet)"
            }
        }
    }

    /// Connects the command channel and sends InitCommandRequest; `openEvent` also opens the
    /// event channel.
    init(port: UInt16, openEvent: Bool = true) throws {
        command = try TCPConnection.connect(host: "127.0.0.1", port: port, timeout: Self.timeout)
        try command.write(PTPIPPacket.initCommandRequest(guid: Array(repeating: 7, count: 16),
                                                         friendlyName: "relay-test",
                                                         protocolVersion: PTPIPPacket.protocolVersion1_0).encoded(),
                          timeout: Self.timeout)
        guard case let .initCommandAck(number, _, _, _)? = try readCommandPacket() else {
            throw ClientError.closed("before InitCommandAck")
        }
        connectionNumber = number
        if openEvent { try openEventChannel() }
    }

    func openEventChannel() throws {
        let channel = try TCPConnection.connect(host: "127.0.0.1", port: command.peerPort, timeout: Self.timeout)
        try channel.write(PTPIPPacket.initEventRequest(connectionNumber: connectionNumber).encoded(), timeout: Self.timeout)
        event = channel
        guard let ack = try readEventPacket(timeout: Self.timeout), ack == .initEventAck else {
            throw ClientError.closed("before InitEventAck")
        }
    }

    deinit {
        command.close()
        event?.close()
    }

    /// The next packet on the command channel; nil when the camera closed it.
    func readCommandPacket() throws -> PTPIPPacket? {
        while true {
            if let packet = try commandReader.nextPacket() { return packet }
            let bytes = try command.readSome(maxCount: 1 << 20, timeout: Self.timeout)
            if bytes.isEmpty { return nil }
            commandReader.append(bytes)
        }
    }

    /// The next packet on the event channel within `timeout`; nil on timeout or close.
    func readEventPacket(timeout: Double) throws -> PTPIPPacket? {
        guard let event else { return nil }
        let deadline = SocketClock.now() + timeout
        while true {
            if let packet = try eventReader.nextPacket() { return packet }
            let left = deadline - SocketClock.now()
            guard left > 0, try event.waitReadable(timeout: left) else { return nil }
            let bytes = try event.readSome(maxCount: 1 << 16, timeout: Self.timeout)
            if bytes.isEmpty { return nil }
            eventReader.append(bytes)
        }
    }

    /// Sends one operation and collects its data phase (if any) and its response.
    func transaction(_ code: UInt16, _ parameters: [UInt32] = []) throws -> (response: PTPOperationResponse, data: [UInt8]?) {
        let tid = nextTransactionID
        nextTransactionID &+= 1
        let request = PTPOperationRequest(code: PTPOperationCode(code), transactionID: tid, parameters: parameters)
        try command.write(PTPIPPacket.operationRequest(request).encoded(), timeout: Self.timeout)
        var data: [UInt8]?
        while true {
            guard let packet = try readCommandPacket() else { throw ClientError.closed("during \(request.code)") }
            switch packet {
            case .startData:
                data = []
            case let .data(_, payload), let .endData(_, payload):
                data = (data ?? []) + payload
            case let .operationResponse(response):
                return (response, data)
            default:
                throw ClientError.unexpected(packet)
            }
        }
    }

    func openSession() throws -> PTPOperationResponse {
        try transaction(0x1002, [1]).response
    }
}

extension TCPConnection {
    /// The port part of `peer` ("127.0.0.1:PORT").
    var peerPort: UInt16 {
        UInt16(peer.split(separator: ":").last.map(String.init) ?? "") ?? 0
    }
}
