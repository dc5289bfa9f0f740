import Foundation
import PTPWire
import SocketIO

/// How relay introduces itself to a camera and how long it waits for one.
public struct PTPIPClientOptions: Sendable {
    public var host: String
    public var port: UInt16
    /// Sent in InitCommandRequest. Cameras pair with it, so it must stay the same across runs.
    public var guid: [UInt8]
    /// Shown by the camera as the connected device's name.
    public var friendlyName: String
    public var connectTimeout: Double
    /// Longest wait for any one read or write once connected (libgphoto2 waits 2.5 s, which
    /// busy bodies exceed; a stalled camera costs at most this).
    public var ioTimeout: Double

    /// The standard PTP/IP port.
    public static let defaultPort: UInt16 = 15740

    public init(
        host: String, port: UInt16 = PTPIPClientOptions.defaultPort, guid: [UInt8], friendlyName: String,
        connectTimeout: Double = 5, ioTimeout: Double = 10
    ) {
        self.host = host
        self.port = port
        self.guid = guid
        self.friendlyName = friendlyName
        self.connectTimeout = connectTimeout
        self.ioTimeout = ioTimeout
    }

    /// "host:port", as messages name the camera.
    public var address: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// What to do with the data phase of an operation.
public enum PTPIPDataIn {
    /// The operation sends no data (data that comes anyway is an error).
    case none
    /// Collect at most `limit` bytes into memory (datasets, event lists).
    case collect(limit: Int)
    /// Hand each piece of at most `limit` bytes in all to `sink` as it arrives (photos).
    case stream(limit: Int, sink: ([UInt8]) throws -> Void)
}

/// The answer to one operation.
public struct PTPIPReply: Sendable {
    public var response: PTPOperationResponse
    /// Collected data (`.collect`), nil when the camera sent no data phase.
    public var data: [UInt8]?
    /// Bytes of the data phase, collected or streamed.
    public var dataByteCount: Int

    public var code: PTPResponseCode { response.code }
}

/// A PTP/IP session with one camera: the two connections, the handshake, and one transaction
/// at a time on the command channel.
///
/// Owned by one thread (PTP is strictly request/response, so there is nothing to share); only
/// `shutdown()` may be called from elsewhere, to end that thread's waits at once.
public final class PTPIPClient {
    public let options: PTPIPClientOptions
    public let command: PTPIPChannel
    public let event: PTPIPChannel
    /// From InitCommandAck.
    public let connectionNumber: UInt32
    public let cameraGUID: [UInt8]
    public let cameraName: String
    private var nextTransactionID: UInt32 = 0
    /// False from a request until its response: a wait given up in between (a stop, a timeout)
    /// leaves the command channel mid-transaction, and nothing more may be sent on it.
    public private(set) var isIdle = true
    /// When the last operation was sent (system uptime): a body ends a session that sends none
    /// for a while, whatever the event channel carries.
    public private(set) var lastTransactionStart = ProcessInfo.processInfo.systemUptime
    /// Events that arrived on the command channel (some bodies send them there).
    private var strayEvents: [PTPEvent] = []

    /// Largest data phase collected into memory by `.collect` callers that do not say.
    public static let defaultCollectLimit = 16 << 20

    private init(
        options: PTPIPClientOptions, command: PTPIPChannel, event: PTPIPChannel,
        ack: (number: UInt32, guid: [UInt8], name: String)
    ) {
        self.options = options
        self.command = command
        self.event = event
        connectionNumber = ack.number
        cameraGUID = ack.guid
        cameraName = ack.name
    }

    deinit { close() }

    /// Connects both channels and performs the PTP/IP handshake (no session is opened yet).
    /// `interrupt` is checked while waiting, so that a stop request is not held up. A Fujifilm
    /// answering on its own ports or with its own ack is `.unsupportedCamera`; with
    /// `probeFujifilmPort`, so is a refused or silent address whose Fujifilm port accepts (one
    /// connect more, so a scan of many addresses leaves it off).
    public static func connect(
        _ options: PTPIPClientOptions, interrupt: (@Sendable () -> Bool)? = nil,
        probeFujifilmPort: Bool = false
    ) throws(PTPIPError) -> PTPIPClient {
        let peer = options.address
        let fujifilm = PTPIPError.unsupportedCamera(peer: peer, brand: "Fujifilm", model: nil)
        let command: PTPIPChannel
        do {
            command = try open(options, interrupt: interrupt)
        } catch {
            if probeFujifilmPort, options.port != FujifilmSignals.commandPort, case .cannotConnect = error,
                FujifilmSignals.listens(host: options.host, timeout: min(options.connectTimeout, 2))
            {
                throw fujifilm
            }
            throw error
        }
        let answer: PTPIPPacket
        do {
            try command.send(
                .initCommandRequest(
                    guid: options.guid, friendlyName: options.friendlyName,
                    protocolVersion: PTPIPPacket.protocolVersion1_0), timeout: options.ioTimeout)
            answer = try command.nextPacket(timeout: options.ioTimeout, waitingFor: "InitCommandAck")
        } catch {
            command.close()
            // A Fujifilm may close the connection on a standard init request to its own port.
            if options.port == FujifilmSignals.commandPort, case .closedByCamera = error { throw fujifilm }
            throw error
        }
        let ack: (UInt32, [UInt8], String)
        switch answer {
        case .initCommandAck(let number, let guid, let name, let version):
            guard !FujifilmSignals.isFujiAck(protocolVersion: version) else {
                command.close()
                throw fujifilm
            }
            ack = (number, guid, name)
        case .initFail(let reason):
            command.close()
            if options.port == FujifilmSignals.commandPort, FujifilmSignals.isFujiRefusal(reason: reason) { throw fujifilm }
            throw .refused(peer: peer, reason: InitFailReason(reason))
        case let other:
            command.close()
            throw .protocolViolation(peer: peer, detail: "expected InitCommandAck, got \(other.type)")
        }
        let event: PTPIPChannel
        do throws(PTPIPError) {
            event = try open(options, interrupt: interrupt)
            try event.send(.initEventRequest(connectionNumber: ack.0), timeout: options.ioTimeout)
            switch try event.nextPacket(timeout: options.ioTimeout, waitingFor: "InitEventAck") {
            case .initEventAck: break
            case .initFail(let reason):
                event.close()
                throw PTPIPError.refused(peer: peer, reason: InitFailReason(reason))
            case let other:
                event.close()
                throw PTPIPError.protocolViolation(peer: peer, detail: "expected InitEventAck, got \(other.type)")
            }
            // Nikon bodies hang the session unless the client probes the event channel once the
            // handshake is done (airnef `startMtpSession`); the answer is read with the events.
            try event.send(.probeRequest, timeout: options.ioTimeout)
        } catch {
            command.close()
            throw error
        }
        return PTPIPClient(options: options, command: command, event: event, ack: ack)
    }

    private static func open(
        _ options: PTPIPClientOptions,
        interrupt: (@Sendable () -> Bool)?
    ) throws(PTPIPError) -> PTPIPChannel {
        do {
            let connection = try TCPConnection.connect(host: options.host, port: options.port, timeout: options.connectTimeout)
            let channel = PTPIPChannel(connection: connection)
            channel.interrupt = interrupt
            return channel
        } catch let error as SocketError {
            throw .cannotConnect(peer: options.address, error)
        } catch {
            throw .protocolViolation(peer: options.address, detail: "\(error)")
        }
    }

    /// Checked while waiting for the camera; true makes the wait throw `.interrupted`.
    public var interrupt: (@Sendable () -> Bool)? {
        get { command.interrupt }
        set {
            command.interrupt = newValue
            event.interrupt = newValue
        }
    }

    // MARK: - Transactions

    /// OpenSession with transaction id 0; later operations count up from 1.
    public func openSession(id: UInt32 = 1) throws(PTPIPError) -> PTPIPReply {
        nextTransactionID = 0
        return try transaction(.openSession, [id])
    }

    /// Sends one operation and waits for its response, handling its data phases: `dataOut` is
    /// sent to the camera, data from the camera goes where `dataIn` says.
    public func transaction(
        _ code: PTPOperationCode, _ parameters: [UInt32] = [], dataOut: [UInt8]? = nil,
        dataIn: PTPIPDataIn = .none, timeout: Double? = nil
    ) throws(PTPIPError) -> PTPIPReply {
        guard isIdle else {
            throw .protocolViolation(peer: command.peer, detail: "\(code) sent while another transaction was unfinished")
        }
        let transactionID = takeTransactionID()
        let wait = timeout ?? options.ioTimeout
        isIdle = false
        lastTransactionStart = ProcessInfo.processInfo.systemUptime
        let request = PTPOperationRequest(
            dataPhase: dataOut == nil
                ? PTPOperationRequest.dataPhaseNoneOrIn
                : PTPOperationRequest.dataPhaseOut,
            code: code, transactionID: transactionID, parameters: parameters)
        try command.send(.operationRequest(request), timeout: wait)
        if let dataOut {
            try command.send(.startData(transactionID: transactionID, totalLength: UInt64(dataOut.count)), timeout: wait)
            try command.send(.endData(transactionID: transactionID, payload: dataOut), timeout: wait)
        }
        let reply = try awaitResponse(to: request, dataIn: dataIn, timeout: wait)
        isIdle = true
        return reply
    }

    private func takeTransactionID() -> UInt32 {
        let id = nextTransactionID
        nextTransactionID = nextTransactionID &+ 1
        if nextTransactionID == 0 || nextTransactionID == 0xFFFF_FFFF { nextTransactionID = 1 }
        return id
    }

    private func awaitResponse(
        to request: PTPOperationRequest, dataIn: PTPIPDataIn,
        timeout: Double
    ) throws(PTPIPError) -> PTPIPReply {
        let peer = command.peer
        let limit: Int
        switch dataIn {
        case .none: limit = 0
        case .collect(let max), .stream(let max, _): limit = max
        }
        var phase = PTPIPDataPhase(transactionID: request.transactionID, maxLength: limit)
        var collected: [UInt8]?
        let what = "the answer to \(request.code)"
        while true {
            let piece = try command.nextPiece(timeout: timeout, waitingFor: what)
            do {
                switch piece {
                case .packet(.startData(let id, let total)):
                    guard !isNone(dataIn) else {
                        throw PTPIPError.protocolViolation(peer: peer, detail: "\(request.code) sent data, which it has none of")
                    }
                    try phase.start(transactionID: id, totalLength: total)
                    if case .collect = dataIn { collected = [] }
                case .data(let data):
                    try phase.accept(data)
                    switch dataIn {
                    case .collect: collected?.append(contentsOf: data.bytes)
                    case .stream(_, let sink): if !data.bytes.isEmpty { try sink(data.bytes) }
                    case .none: break
                    }
                case .packet(.operationResponse(let response)):
                    guard response.transactionID == request.transactionID else {
                        throw PTPIPError.protocolViolation(
                            peer: peer,
                            detail:
                                "the answer to transaction \(request.transactionID) (\(request.code)) carried transaction id \(response.transactionID)"
                        )
                    }
                    if phase.hasStarted && !phase.isFinished && response.code.isOK {
                        throw PTPIPError.protocolViolation(
                            peer: peer, detail: "\(request.code) ended before its data did (\(phase.receivedByteCount) bytes)")
                    }
                    return PTPIPReply(response: response, data: collected, dataByteCount: phase.receivedByteCount)
                case .packet(.event(let event)):
                    strayEvents.append(event)
                case .packet(.probeRequest):
                    try command.send(.probeResponse, timeout: timeout)
                case .packet(.probeResponse):
                    break
                case .packet(let other):
                    throw PTPIPError.protocolViolation(peer: peer, detail: "\(other.type) arrived while relay waited for \(what)")
                }
            } catch let error as PTPIPError {
                throw error
            } catch let error as PTPWireError {
                throw .protocolViolation(peer: peer, detail: "\(request.code): \(error)")
            } catch {
                // The sink failed (the disk, not the camera): the transaction is abandoned
                // mid-phase, so the channel is unusable and the caller must reconnect.
                throw .sinkFailed(error)
            }
        }
    }

    private func isNone(_ dataIn: PTPIPDataIn) -> Bool {
        if case .none = dataIn { return true }
        return false
    }

    // MARK: - Events

    /// Events pushed on the event channel (and strays from the command channel), waiting up to
    /// `timeout` for the first; probe requests are answered on the way.
    public func events(timeout: Double) throws(PTPIPError) -> [PTPEvent] {
        var events = strayEvents
        strayEvents.removeAll()
        var wait = events.isEmpty ? timeout : 0
        while let piece = try event.pieceIfAvailable(timeout: wait, completionTimeout: options.ioTimeout, waitingFor: "an event") {
            switch piece {
            case .packet(.event(let pushed)):
                events.append(pushed)
                // Once one event is here, take only what has arrived with it.
                wait = 0
            case .packet(.probeRequest): try event.send(.probeResponse, timeout: options.ioTimeout)
            case .packet(.probeResponse): break
            case .packet(let other):
                throw .protocolViolation(peer: event.peer, detail: "\(other.type) arrived on the event channel")
            case .data:
                throw .protocolViolation(peer: event.peer, detail: "data arrived on the event channel")
            }
        }
        return events
    }

    // MARK: - Ending

    /// Ends every wait of the owning thread at once (safe from any thread).
    public func shutdown() {
        command.shutdown()
        event.shutdown()
    }

    /// Closes both connections (owner only; safe to call twice).
    public func close() {
        command.close()
        event.close()
    }

    /// Closes both connections after a clean end of the session: each ends its stream first and
    /// reads what the camera still sends (a probe's answer, an event) until the camera closes it
    /// too, within `timeout` in all, so that the body sees an end and no reset.
    public func closeGracefully(timeout: Double = 0.5) {
        let half = timeout / 2
        command.closeGracefully(timeout: half)
        event.closeGracefully(timeout: half)
    }
}
