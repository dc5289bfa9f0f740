import PTPWire
import SocketIO

/// One TCP connection speaking PTP/IP, owned by one thread: writes whole packets, and reads
/// pieces (``PTPIPStreamReader``) with a deadline, checking between short waits whether its owner
/// wants it to give up, so that a stop request never waits for a stalled camera.
public final class PTPIPChannel {
    public let connection: TCPConnection
    private var reader: PTPIPStreamReader
    /// Checked about every `pollSlice` seconds while waiting for bytes; true makes the wait throw
    /// `PTPIPError.interrupted`.
    public var interrupt: (@Sendable () -> Bool)?

    /// How long one wait lasts before `interrupt` is asked again.
    static let pollSlice = 0.1

    public init(
        connection: TCPConnection, policy: PTPIPDecoding = .lenient,
        maxControlPacketLength: UInt32 = PTPIPStreamReader.defaultMaxControlPacketLength
    ) {
        self.connection = connection
        reader = PTPIPStreamReader(maxControlPacketLength: maxControlPacketLength, policy: policy)
    }

    /// "host:port" of the other side.
    public var peer: String { connection.peer }

    /// Writes one packet within `timeout`.
    public func send(_ packet: PTPIPPacket, timeout: Double) throws(PTPIPError) {
        do {
            try connection.write(packet.encoded(), timeout: timeout)
        } catch let error as SocketError {
            throw Self.map(error, peer: peer, waitingFor: "a write of \(packet.type)")
        } catch {
            throw .protocolViolation(peer: peer, detail: "\(error)")
        }
    }

    /// The next piece, waiting at most `timeout`; `waitingFor` names what is expected, for errors.
    public func nextPiece(timeout: Double, waitingFor: String) throws(PTPIPError) -> PTPIPStreamReader.Piece {
        let deadline = SocketClock.now() + timeout
        while true {
            if let piece = try decoded() { return piece }
            guard try waitReadable(until: deadline) else {
                throw .timedOut(peer: peer, waitingFor: waitingFor, seconds: timeout)
            }
            try receive(waitingFor: waitingFor)
        }
    }

    /// The next piece if one is complete already or starts to arrive within `timeout` (then the
    /// rest may take up to `completionTimeout`); nil otherwise.
    public func pieceIfAvailable(
        timeout: Double, completionTimeout: Double,
        waitingFor: String
    ) throws(PTPIPError) -> PTPIPStreamReader.Piece? {
        if let piece = try decoded() { return piece }
        guard try waitReadable(until: SocketClock.now() + timeout) else { return nil }
        return try nextPiece(timeout: completionTimeout, waitingFor: waitingFor)
    }

    /// The next whole control packet (handshakes): a data packet here is a protocol violation.
    public func nextPacket(timeout: Double, waitingFor: String) throws(PTPIPError) -> PTPIPPacket {
        switch try nextPiece(timeout: timeout, waitingFor: waitingFor) {
        case .packet(let packet): return packet
        case .data: throw .protocolViolation(peer: peer, detail: "data arrived while relay waited for \(waitingFor)")
        }
    }

    /// Stops both directions (safe from any thread); the owner's waits end promptly.
    public func shutdown() { connection.shutdown() }

    /// Releases the socket (owner only).
    public func close() { connection.close() }

    /// Ends the stream, reads what the camera still sends until it closes too (or `timeout`),
    /// then releases the socket (owner only).
    public func closeGracefully(timeout: Double) { connection.closeGracefully(timeout: timeout) }

    private func decoded() throws(PTPIPError) -> PTPIPStreamReader.Piece? {
        do {
            return try reader.next()
        } catch {
            throw .protocolViolation(peer: peer, detail: error.description)
        }
    }

    private func waitReadable(until deadline: Double) throws(PTPIPError) -> Bool {
        while true {
            if let interrupt, interrupt() { throw .interrupted }
            let left = deadline - SocketClock.now()
            if left <= 0 { return false }
            do {
                if try connection.waitReadable(timeout: min(left, Self.pollSlice)) { return true }
            } catch let error as SocketError {
                throw .socket(peer: peer, error)
            } catch {
                throw .protocolViolation(peer: peer, detail: "\(error)")
            }
        }
    }

    private func receive(waitingFor: String) throws(PTPIPError) {
        let bytes: [UInt8]
        do {
            bytes = try connection.readSome(maxCount: reader.suggestedReadLength, timeout: Self.pollSlice)
        } catch let error as SocketError {
            throw Self.map(error, peer: peer, waitingFor: waitingFor)
        } catch {
            throw .protocolViolation(peer: peer, detail: "\(error)")
        }
        if bytes.isEmpty { throw .closedByCamera(peer: peer, waitingFor: waitingFor) }
        reader.append(bytes)
    }

    static func map(_ error: SocketError, peer: String, waitingFor: String) -> PTPIPError {
        switch error {
        case .closedByPeer: return .closedByCamera(peer: peer, waitingFor: waitingFor)
        case .timedOut(_, _, let seconds): return .timedOut(peer: peer, waitingFor: waitingFor, seconds: seconds)
        default: return .socket(peer: peer, error)
        }
    }
}
