import Foundation
import PTPWire
import RelayCore
import SocketIO

/// Accepts clients one after another: the PTP/IP command handshake, the event channel (refused
/// when it does not open in time), then the session, then the next client.
struct SimServer {
    private(set) var listener: TCPListener
    let card: CameraCard
    let power: SimPower
    let activation: SimActivation
    let options: SimOptions
    let log: SimLog
    let stop: StopFlag
    private var counters = FaultCounters()
    private var connectionNumber: UInt32 = 0

    /// How long a new connection may take to send its init packet.
    static let handshakeTimeout = 10.0

    init(
        listener: TCPListener, card: CameraCard, power: SimPower, activation: SimActivation, options: SimOptions,
        log: SimLog, stop: StopFlag
    ) {
        self.listener = listener
        self.power = power
        self.activation = activation
        self.card = card
        self.options = options
        self.log = log
        self.stop = stop
    }

    /// Serves until `stop` is set.
    mutating func run() {
        while !stop.isStopped {
            if power.secondsAsleep > 0 { sleepUntilWoken() }
            do {
                guard let command = try listener.accept(timeout: 0.2) else { continue }
                defer { command.close() }
                try serve(command)
            } catch {
                log.info("client dropped: \(error)")
                // A persistent accept failure (out of descriptors) must not spin the CPU.
                if !stop.isStopped { usleep(100_000) }
            }
        }
    }

    private mutating func serve(_ command: TCPConnection) throws {
        guard case .initCommandRequest(let guid, let name, _)? = try Self.readPacket(command, timeout: Self.handshakeTimeout) else {
            log.info("\(command.peer) closed or sent something other than InitCommandRequest")
            if options.quirks.probeSpendsActivation && activation.mayServe {
                activation.sessionEnded(shutDown: false)
                log.info("the bare connection spent a session of this activation (--probe-spends-activation)")
            }
            return
        }
        log.info("InitCommandRequest from \(command.peer) (\(name))")
        guard options.pairing.admits(guid) else {
            try? command.write(PTPIPPacket.initFail(reason: SimPairing.rejectedReason).encoded(), timeout: 1)
            log.info("refused \(command.peer) (\(name)): not paired (GUID \(PTPIPGUID.hex(guid)))")
            return
        }
        guard activation.mayServe else {
            try? command.write(PTPIPPacket.initFail(reason: 2).encoded(), timeout: 1)
            log.info(
                "refused \(command.peer) (\(name)): the body served its sessions for this activation "
                    + "(--sessions-per-activation); a line \"activate\" on stdin activates it again")
            return
        }
        connectionNumber &+= 1
        let number = connectionNumber
        try command.write(
            PTPIPPacket.initCommandAck(
                connectionNumber: number, guid: Self.guid(for: options.profile),
                friendlyName: options.profile.model, protocolVersion: PTPIPPacket.protocolVersion1_0
            ).encoded(), timeout: 5)
        guard let event = try awaitEventChannel(number: number) else {
            log.info("refused \(command.peer) (\(name)): event channel not opened within \(options.faults.eventChannelTimeout) s")
            return
        }
        defer { event.close() }
        log.info("session \(number) with \(command.peer) (\(name))")
        card.clearNewObjects()
        let listener = self.listener
        let log = self.log
        var session = SimSession(
            command: command, event: event, card: card, power: power, options: options,
            sessionNumber: UInt64(number), log: log, stop: stop
        ) {
            Self.refuseWaitingClients(listener, log: log)
        }
        let reason = session.run(counters: &counters)
        activation.sessionEnded(shutDown: session.shutsDownAfter)
        log.info("session \(number) ended: \(reason)" + (session.shutsDownAfter ? " (the body shuts down, as asked)" : ""))
    }

    /// Closes the listener while the camera sleeps (clients are refused), then listens again on
    /// the same address.
    private mutating func sleepUntilWoken() {
        let port = listener.port
        listener.close()
        log.info("asleep for \(String(format: "%.1f", power.secondsAsleep)) s: not listening")
        while !stop.isStopped, power.secondsAsleep > 0 { usleep(50_000) }
        while !stop.isStopped {
            do {
                listener = try TCPListener(host: options.host, port: port)
                log.info("awake: listening on \(options.host):\(port) again")
                return
            } catch {
                log.info("cannot listen again yet: \(error)")
                usleep(200_000)
            }
        }
    }

    /// Waits for the second connection carrying InitEventRequest for `number`. Other clients
    /// arriving meanwhile are told the camera is busy.
    private func awaitEventChannel(number: UInt32) throws -> TCPConnection? {
        let deadline = SocketClock.now() + options.faults.eventChannelTimeout
        while !stop.isStopped {
            let left = deadline - SocketClock.now()
            if left <= 0 { return nil }
            guard let candidate = try listener.accept(timeout: min(left, 0.2)) else { continue }
            do {
                let packet = try Self.readPacket(candidate, timeout: max(0.5, min(left, Self.handshakeTimeout)))
                switch packet {
                case .initEventRequest(let connectionNumber)? where connectionNumber == number:
                    try candidate.write(PTPIPPacket.initEventAck.encoded(), timeout: 5)
                    return candidate
                case .initCommandRequest?:
                    try? candidate.write(PTPIPPacket.initFail(reason: 2).encoded(), timeout: 1)
                default:
                    try? candidate.write(PTPIPPacket.initFail(reason: 1).encoded(), timeout: 1)
                }
            } catch {
                log.info("connection from \(candidate.peer) during handshake: \(error)")
            }
            candidate.close()
        }
        return nil
    }

    /// A body serves one client at a time: another that connects meanwhile is told InitFail
    /// "busy" (reason 2), which is what a photographer sees when the camera's app holds it.
    static func refuseWaitingClients(_ listener: TCPListener, log: SimLog) {
        while let other = try? listener.accept(timeout: 0) {
            _ = try? readPacket(other, timeout: 0.5)
            try? other.write(PTPIPPacket.initFail(reason: 2).encoded(), timeout: 1)
            log.info("refused \(other.peer): busy with another client")
            other.close()
        }
    }

    /// Reads one packet; nil when the peer closes first.
    static func readPacket(_ connection: TCPConnection, timeout: Double) throws -> PTPIPPacket? {
        var reader = PTPIPPacketReader(maxPacketLength: 4096)
        let deadline = SocketClock.now() + timeout
        while true {
            if let packet = try reader.nextPacket() { return packet }
            let bytes = try connection.readSome(
                maxCount: max(1, reader.bytesNeeded),
                timeout: max(0, deadline - SocketClock.now()))
            if bytes.isEmpty { return nil }
            reader.append(bytes)
        }
    }

    /// A fixed GUID per profile.
    static func guid(for profile: SimProfile) -> [UInt8] {
        let seed = Array("relaysim-\(profile.rawValue)".utf8)
        return (0..<16).map { seed[$0 % seed.count] }
    }
}
