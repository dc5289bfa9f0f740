import Foundation
import PTPWire
import RelayCore
import SocketIO

/// One client session: owns the command and event connections (on the server's thread only),
/// reads operations, answers them through `SimResponder`, and applies the faults to what it
/// sends.
struct SimSession {
    let command: TCPConnection
    let event: TCPConnection
    let options: SimOptions
    let log: SimLog
    let stop: StopFlag
    let power: SimPower
    /// Called between operations: answers clients that connect while this one is served.
    let refuseOthers: () -> Void
    var responder: SimResponder
    var link: FaultyLink
    var random: SeededRandom
    private var commandReader = PTPIPPacketReader()
    private var eventReader = PTPIPPacketReader()
    private var pendingDataOut: (request: PTPOperationRequest, bytes: [UInt8])?
    private let startedAt = SocketClock.now()
    /// The body stopped answering (an operation it does not forgive came first).
    private var silent = false
    /// The client told the body to shut down after this session.
    private(set) var shutsDownAfter = false

    /// Largest data-out phase accepted from a client (the simulator keeps none of it).
    static let maxDataOut = 16 << 20
    /// Largest piece of a photo read into memory at once while it is sent.
    static let maxPiece = 1 << 20

    init(
        command: TCPConnection, event: TCPConnection, card: CameraCard, power: SimPower, options: SimOptions,
        sessionNumber: UInt64, log: SimLog, stop: StopFlag, refuseOthers: @escaping () -> Void
    ) {
        self.command = command
        self.power = power
        self.refuseOthers = refuseOthers
        self.event = event
        self.options = options
        self.log = log
        self.stop = stop
        responder = SimResponder(
            profile: options.profile, card: card, burst: options.burst,
            propertyFlood: options.propertyFlood, remoteCapture: options.remoteCapture,
            quirks: options.quirks)
        link = FaultyLink(
            connection: command, faults: options.faults,
            random: SeededRandom.derived(seed: options.seed, stream: 3, index: sessionNumber))
        random = SeededRandom.derived(seed: options.seed, stream: 4, index: sessionNumber)
    }

    /// Serves the client until it leaves, a fault drops it, or the simulator stops. Returns a
    /// line saying why the session ended.
    mutating func run(counters: inout FaultCounters) -> String {
        var lastOperation = SocketClock.now()
        var nextPropertyChange = options.propertyChangeEvery.map { startedAt + $0 }
        do {
            while true {
                if stop.isStopped { throw SessionEnd.stopRequested }
                if power.secondsAsleep > 0 { throw SessionEnd.asleep }
                let now = SocketClock.now()
                if options.idleTimeout > 0 && now - lastOperation > options.idleTimeout {
                    throw SessionEnd.idle(options.idleTimeout)
                }
                if let due = nextPropertyChange, now >= due, let every = options.propertyChangeEvery {
                    responder.changeProperty()
                    nextPropertyChange = due + every
                }
                refuseOthers()
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
                    // A long transfer is activity too: idle time counts from its end.
                    lastOperation = SocketClock.now()
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
        case .operationRequest(let request):
            if request.dataPhase == PTPOperationRequest.dataPhaseOut {
                pendingDataOut = (request, [])
            } else {
                try execute(request, dataOut: nil, counters: &counters)
            }
        case .data(_, let payload):
            appendDataOut(payload)
        case .endData(_, let payload):
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

    private mutating func execute(
        _ request: PTPOperationRequest, dataOut: [UInt8]?,
        counters: inout FaultCounters
    ) throws {
        if power.sleepsBefore(request.code.rawValue) { throw SessionEnd.asleep }
        var reply: SimReply
        let scripted = SimResponder.isShutterRelease(request) ? nextCaptureAnswer(counters: &counters) : nil
        if isBusy(request.code) || scripted == "B" {
            reply = SimReply(code: .deviceBusy)
        } else if scripted == "N" {
            // The camera takes the trigger but makes no photo (focus not found, say).
            reply = SimReply(code: .ok)
        } else {
            reply = responder.respond(to: request, dataOut: dataOut)
        }
        if let hostility = options.faults.hostility {
            switch request.code {
            case .getDeviceInfo:
                if case .bytes(let bytes) = reply.data { reply.data = .bytes(hostility.deviceInfo(bytes)) }
            case .getObjectInfo:
                reply = hostility.objectInfo(reply)
                try misbehave(hostility, answering: request, with: reply, counters: &counters)
            default:
                break
            }
        }
        if reply.stopsAnswering {
            if !silent {
                silent = true
                log.info(
                    "\(request.code) came before the \(options.profile.rawValue) handshake was done: the camera stops "
                        + "answering for the rest of this session, as the real body does (see --sdio-handshake)")
            }
            return
        }
        if reply.endsActivation { shutsDownAfter = true }
        if options.verbose {
            let parameters = request.parameters.map { String($0, radix: 16) }.joined(separator: ",")
            log.info(
                "\(request.code)(\(parameters)) tid \(request.transactionID) → \(reply.code)"
                    + (reply.data.map { ", \($0.count) data bytes" } ?? ""))
        }
        if let data = reply.data {
            try sendData(data, transactionID: request.transactionID, counters: &counters)
        }
        let response = PTPOperationResponse(
            code: reply.code, transactionID: request.transactionID,
            parameters: reply.parameters)
        try link.send(PTPIPPacket.operationResponse(response).encoded(), counters: &counters)
        for pushed in reply.events { try sendEvent(pushed) }
    }

    /// The next `--capture-answers` letter, if the script is not used up.
    private func nextCaptureAnswer(counters: inout FaultCounters) -> Character? {
        let script = options.faults.captureAnswers
        guard counters.captureAnswersUsed < script.count else { return nil }
        defer { counters.captureAnswersUsed += 1 }
        return script[script.index(script.startIndex, offsetBy: counters.captureAnswersUsed)]
    }

    /// `--hostile` modes that break the answer to GetObjectInfo itself.
    private mutating func misbehave(
        _ hostility: SimHostility, answering request: PTPOperationRequest, with reply: SimReply,
        counters: inout FaultCounters
    ) throws {
        let tid = request.transactionID
        switch hostility {
        case .oversizedLength:
            var header = PTPDataWriter()
            header.appendU32(0xFFFF_FFF0)
            header.appendU32(PTPIPPacketType.operationResponse.rawValue)
            header.appendU16(PTPResponseCode.ok.rawValue)
            try link.send(header.bytes, counters: &counters)
            throw SessionEnd.hostile(hostility)
        case .truncatedPacket:
            try link.send(
                PTPIPPacket.startData(transactionID: tid, totalLength: UInt64(reply.data?.count ?? 0)).encoded(),
                counters: &counters)
            var header = PTPDataWriter()
            header.appendU32(12 + 1000)
            header.appendU32(PTPIPPacketType.data.rawValue)
            header.appendU32(tid)
            try link.send(header.bytes + [UInt8](repeating: 0xAB, count: 10), counters: &counters)
            throw SessionEnd.hostile(hostility)
        case .wrongTransaction:
            if let data = reply.data { try sendData(data, transactionID: tid, counters: &counters) }
            let response = PTPOperationResponse(code: .ok, transactionID: tid &+ 1000, parameters: [])
            try link.send(PTPIPPacket.operationResponse(response).encoded(), counters: &counters)
            throw SessionEnd.hostile(hostility)
        case .malformedStrings, .longName, .traversalName, .overlongData:
            break
        }
    }

    private mutating func isBusy(_ code: PTPOperationCode) -> Bool {
        guard !SimResponder.isExemptFromBusy(code) else { return false }
        if SocketClock.now() - startedAt < options.faults.busyAfterConnect { return true }
        guard options.faults.busyRate > 0 else { return false }
        let draw = Double(random.next() % 1_000_000) / 1_000_000
        return draw < options.faults.busyRate
    }

    /// StartData, Data packets of the camera's own sizes (random with `--random-split`), EndData.
    /// Each packet's payload is read from the data and written in pieces of at most 1 MiB, so a
    /// photo is never held in memory whole, even when it goes out as one packet (Nikon).
    private mutating func sendData(_ data: SimData, transactionID: UInt32, counters: inout FaultCounters) throws {
        var dropAt: Int?
        if case .object = data {
            counters.objectTransfers += 1
            if let target = options.faults.dropDuringTransfer, target == counters.objectTransfers,
                !counters.dropDuringTransferFired
            {
                counters.dropDuringTransferFired = true
                dropAt = data.count / 2
            }
        }
        var announced = data.count
        if options.faults.hostility == .overlongData, case .object = data, announced > 64 { announced -= 64 }
        try link.send(
            PTPIPPacket.startData(transactionID: transactionID, totalLength: UInt64(announced)).encoded(),
            counters: &counters)
        var offset = 0
        while true {
            if stop.isStopped { throw SessionEnd.stopRequested }
            let left = data.count - offset
            let size = nextDataPacketSize(left: left)
            if let cut = dropAt, offset + size >= cut {
                try sendDataPacket(
                    isEnd: false, transactionID: transactionID, data: data, from: offset,
                    count: max(0, cut - offset), counters: &counters)
                throw SessionEnd.droppedDuringTransfer(counters.objectTransfers)
            }
            if size >= left {
                if options.profile.body.endsWithEmptyEndData && left > 0 {
                    // Canon bodies send every byte in Data packets and end with an empty EndData.
                    try sendDataPacket(
                        isEnd: false, transactionID: transactionID, data: data, from: offset, count: left,
                        counters: &counters)
                    try sendDataPacket(
                        isEnd: true, transactionID: transactionID, data: data, from: data.count, count: 0,
                        counters: &counters)
                } else {
                    try sendDataPacket(
                        isEnd: true, transactionID: transactionID, data: data, from: offset, count: left,
                        counters: &counters)
                }
                return
            }
            try sendDataPacket(
                isEnd: false, transactionID: transactionID, data: data, from: offset, count: size,
                counters: &counters)
            offset += size
        }
    }

    /// One Data or EndData packet: its header, then its payload read and written piece by piece.
    private mutating func sendDataPacket(
        isEnd: Bool, transactionID: UInt32, data: SimData, from offset: Int, count: Int,
        counters: inout FaultCounters
    ) throws {
        var header = PTPDataWriter(capacity: 12)
        header.appendU32(UInt32(truncatingIfNeeded: 12 + count))
        header.appendU32((isEnd ? PTPIPPacketType.endData : PTPIPPacketType.data).rawValue)
        header.appendU32(transactionID)
        try link.send(header.bytes, counters: &counters)
        var sent = 0
        while sent < count {
            let piece = try data.read(at: offset + sent, length: min(count - sent, Self.maxPiece))
            guard !piece.isEmpty else { throw SessionEnd.photoUnreadable }
            try link.send(piece, counters: &counters)
            sent += piece.count
        }
    }

    /// How many bytes the next Data packet carries; `left` or more means "all in EndData".
    private mutating func nextDataPacketSize(left: Int) -> Int {
        if options.faults.randomSplit {
            return Int(random.next() % 65_536) + 1
        }
        return options.profile.body.dataPacketSize ?? left
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
