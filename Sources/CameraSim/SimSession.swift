import Foundation
import PTPWire
import SocketIO
import RelayCore

/// One client session: owns the command and event connections (on the server's thread only),
/// reads operations, answers them through `SimResponder`, and applies the faults to what it
/// sends.
struct SimSession {
    let command: TCPConnection
    let event: TCPConnection
    let options: SimOptions
    let log: SimLog
    let stop: StopFlag
    var responder: SimResponder
    var link: FaultyLink
    var random: SeededRandom
    private var commandReader = PTPIPPacketReader()
    private var eventReader = PTPIPPacketReader()
    private var pendingDataOut: (request: PTPOperationRequest, bytes: [UInt8])?
    private let startedAt = SocketClock.now()

    /// Largest data-out phase accepted from a client (the simulator keeps none of it).
    static let maxDataOut = 16 << 20

    init(command: TCPConnection, event: TCPConnection, card: CameraCard, options: SimOptions,
         sessionNumber: UInt64, log: SimLog, stop: StopFlag) {
        self.command = command
        self.event = event
        self.options = options
        self.log = log
        self.stop = stop
        responder = SimResponder(profile: options.profile, card: card, burst: options.burst)
        link = FaultyLink(connection: command, faults: options.faults,
                          random: SeededRandom.derived(seed: options.seed, stream: 3, index: sessionNumber))
        random = SeededRandom.derived(seed: options.seed, stream: 4, index: sessionNumber)
    }

    /// Serves the client until it leaves, a fault drops it, or the simulator stops. Returns a
    /// line saying why the session ended.
    mutating func run(counters: inout FaultCounters) -> String {
        do {
            while true {
                if stop.isStopped { throw SessionEnd.stopRequested }
                responder.collectNewShots()
                for pushed in responder.takePushEvents() { try sendEvent(pushed) }
                let ready = try TCPConnection.waitReadable([command, event], timeout: 0.05)
                if ready[1] {
                    let bytes = try event.readSome(maxCount: 1 << 16, timeout: 5)
                    if bytes.isEmpty { return "client closed the event channel" }
                    eventReader.append(bytes)
                    while let packet = try eventReader.nextPacket() {
                        if packet == .probeRequest { try event.write(PTPIPPacket.probeResponse.encoded(), timeout: 5) }
                    }
                }
                if ready[0] {
                    let bytes = try command.readSome(maxCount: 1 << 20, timeout: 5)
                    if bytes.isEmpty { return "client closed the command channel" }
                    commandReader.append(bytes)
                    while let packet = try commandReader.nextPacket() {
                        try handle(packet, counters: &counters)
                    }
                }
            }
        } catch let end as SessionEnd {
            return end.description
        } catch {
            return "session ended: \(error)"
        }
    }

    private mutating func handle(_ packet: PTPIPPacket, counters: inout FaultCounters) throws {
        switch packet {
        case let .operationRequest(request):
            if request.dataPhase == PTPOperationRequest.dataPhaseOut {
                pendingDataOut = (request, [])
            } else {
                try execute(request, dataOut: nil, counters: &counters)
            }
        case let .data(_, payload):
            appendDataOut(payload)
        case let .endData(_, payload):
            appendDataOut(payload)
            if let pending = pendingDataOut {
                pendingDataOut = nil
                try execute(pending.request, dataOut: pending.bytes, counters: &counters)
            }
        case .startData, .cancel:
            break
        case .probeRequest:
            try link.send(PTPIPPacket.probeResponse.encoded(), counters: &counters)
        default:
            log.info("ignored unexpected \(packet.type) on the command channel")
        }
    }

    private mutating func appendDataOut(_ payload: [UInt8]) {
        guard var pending = pendingDataOut else { return }
        if pending.bytes.count + payload.count <= Self.maxDataOut { pending.bytes += payload }
        pendingDataOut = pending
    }

    private mutating func execute(_ request: PTPOperationRequest, dataOut: [UInt8]?,
                                  counters: inout FaultCounters) throws {
        var reply: SimReply
        if isBusy(request.code) {
            reply = SimReply(code: .deviceBusy)
        } else {
            reply = responder.respond(to: request, dataOut: dataOut)
        }
        if options.verbose {
            let parameters = request.parameters.map { String($0, radix: 16) }.joined(separator: ",")
            log.info("\(request.code)(\(parameters)) tid \(request.transactionID) → \(reply.code)"
                     + (reply.data.map { ", \($0.count) data bytes" } ?? ""))
        }
        if let data = reply.data {
            try sendData(data, transactionID: request.transactionID, isObjectTransfer: reply.isObjectTransfer,
                         counters: &counters)
        }
        let response = PTPOperationResponse(code: reply.code, transactionID: request.transactionID,
                                            parameters: reply.parameters)
        try link.send(PTPIPPacket.operationResponse(response).encoded(), counters: &counters)
        for pushed in reply.events { try sendEvent(pushed) }
    }

    private mutating func isBusy(_ code: PTPOperationCode) -> Bool {
        guard !SimResponder.isExemptFromBusy(code) else { return false }
        if SocketClock.now() - startedAt < options.faults.busyAfterConnect { return true }
        guard options.faults.busyRate > 0 else { return false }
        let draw = Double(random.next() % 1_000_000) / 1_000_000
        return draw < options.faults.busyRate
    }

    /// StartData, Data packets of the camera's own sizes (random with `--random-split`), EndData.
    private mutating func sendData(_ data: [UInt8], transactionID: UInt32, isObjectTransfer: Bool,
                                   counters: inout FaultCounters) throws {
        var dropAt: Int?
        if isObjectTransfer {
            counters.objectTransfers += 1
            if let target = options.faults.dropDuringTransfer, target == counters.objectTransfers,
               !counters.dropDuringTransferFired {
                counters.dropDuringTransferFired = true
                dropAt = data.count / 2
            }
        }
        try link.send(PTPIPPacket.startData(transactionID: transactionID, totalLength: UInt64(data.count)).encoded(),
                      counters: &counters)
        var offset = 0
        while true {
            if stop.isStopped { throw SessionEnd.stopRequested }
            let left = data.count - offset
            let size = nextDataPacketSize(left: left)
            if let cut = dropAt, offset + size >= cut {
                let partial = Array(data[offset..<max(offset, cut)])
                try link.send(PTPIPPacket.data(transactionID: transactionID, payload: partial).encoded(), counters: &counters)
                throw SessionEnd.droppedDuringTransfer(counters.objectTransfers)
            }
            if size >= left {
                let last = Array(data[offset...])
                if options.profile == .canonEOS && !last.isEmpty {
                    // Canon bodies send every byte in Data packets and end with an empty EndData.
                    try link.send(PTPIPPacket.data(transactionID: transactionID, payload: last).encoded(), counters: &counters)
                    try link.send(PTPIPPacket.endData(transactionID: transactionID, payload: []).encoded(), counters: &counters)
                } else {
                    try link.send(PTPIPPacket.endData(transactionID: transactionID, payload: last).encoded(), counters: &counters)
                }
                return
            }
            let chunk = Array(data[offset..<(offset + size)])
            try link.send(PTPIPPacket.data(transactionID: transactionID, payload: chunk).encoded(), counters: &counters)
            offset += size
        }
    }

    /// How many bytes the next Data packet carries; `left` or more means "all in EndData".
    private mutating func nextDataPacketSize(left: Int) -> Int {
        if options.faults.randomSplit {
            return Int(random.next() % 65_536) + 1
        }
        switch options.profile {
        case .nikon: return left
        case .canonEOS: return 0x8_0000
        case .generic: return 0x1_0000
        }
    }

    private func sendEvent(_ pushed: PTPEvent) throws {
        if options.verbose { log.info("event \(pushed.code) \(pushed.parameters.map { String($0, radix: 16) })") }
        try event.write(PTPIPPacket.event(pushed).encoded(), timeout: 5)
    }
}

/// Lines on stderr prefixed with the command name; one write per line so that lines from
/// different threads do not interleave.
struct SimLog: Sendable {
    func info(_ message: String) {
        FileHandle.standardError.write(Data("camera-sim: \(message)\n".utf8))
    }
}
