import Foundation
import RelayCore
import SocketIO

/// The once-per-run fault counters, kept across sessions by the server so that "drop after N
/// bytes" fires once and the client's reconnect then succeeds.
struct FaultCounters {
    var bytesSent = 0
    var dropAfterBytesFired = false
    var objectTransfers = 0
    var dropDuringTransferFired = false
    /// Bytes sent since the last `--drop-every` drop.
    var bytesSinceDrop = 0
    /// `--capture-answers` letters used so far (the script runs once per simulator run).
    var captureAnswersUsed = 0
}

/// Why a session ended on purpose (a fault), as opposed to a socket error.
enum SessionEnd: Error, CustomStringConvertible {
    case droppedAfterBytes(Int)
    case droppedDuringTransfer(Int)
    case droppedEvery(Int)
    case idle(Double)
    case asleep
    case hostile(SimHostility)
    case photoUnreadable
    case stopRequested

    var description: String {
        switch self {
        case .droppedAfterBytes(let count): return "fault: dropped the connection after \(count) bytes"
        case .droppedDuringTransfer(let number): return "fault: dropped the connection halfway through transfer #\(number)"
        case .droppedEvery(let bytes): return "fault: dropped the connection after another \(bytes) bytes"
        case .idle(let seconds): return "dropped the client: no operation for \(seconds) s"
        case .asleep: return "the camera went to sleep"
        case .hostile(let mode): return "hung up after a hostile answer (\(mode.rawValue))"
        case .photoUnreadable: return "a photo file changed or vanished while it was sent"
        case .stopRequested: return "stopping"
        }
    }
}

/// Writes to the command channel through the configured faults: a byte rate limit, writes cut
/// into random small pieces, and cuts of the connection after a byte count (once, or again and
/// again).
struct FaultyLink {
    let connection: TCPConnection
    let faults: SimFaults
    var random: SeededRandom
    /// When the shaped link has sent everything written so far.
    private var linkFreeAt = SocketClock.now()

    static let writeTimeout = 30.0

    init(connection: TCPConnection, faults: SimFaults, random: SeededRandom) {
        self.connection = connection
        self.faults = faults
        self.random = random
    }

    /// Sends `bytes`, honouring the faults; throws `SessionEnd` when a drop fault fires.
    mutating func send(_ bytes: [UInt8], counters: inout FaultCounters) throws {
        var offset = 0
        while offset < bytes.count {
            var piece = bytes.count - offset
            if faults.randomSplit {
                piece = min(piece, Int(random.next() % 4096) + 1)
            }
            if let rate = faults.bytesPerSecond {
                piece = min(piece, max(256, rate / 20))
            }
            if let limit = faults.dropAfterBytes, !counters.dropAfterBytesFired {
                let left = limit - counters.bytesSent
                if left <= 0 {
                    counters.dropAfterBytesFired = true
                    throw SessionEnd.droppedAfterBytes(limit)
                }
                piece = min(piece, left)
            }
            if let every = faults.dropEvery {
                piece = min(piece, every - counters.bytesSinceDrop)
            }
            try bytes.withUnsafeBytes { raw in
                try connection.write(
                    UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + piece)]),
                    timeout: Self.writeTimeout)
            }
            offset += piece
            counters.bytesSent &+= piece
            throttle(piece)
            if let limit = faults.dropAfterBytes, !counters.dropAfterBytesFired, counters.bytesSent >= limit {
                counters.dropAfterBytesFired = true
                throw SessionEnd.droppedAfterBytes(limit)
            }
            if let every = faults.dropEvery {
                counters.bytesSinceDrop += piece
                if counters.bytesSinceDrop >= every {
                    counters.bytesSinceDrop = 0
                    throw SessionEnd.droppedEvery(every)
                }
            }
        }
    }

    /// How long the link may have been idle and still send at once what it could have sent
    /// meanwhile: a radio's queue, 20 ms deep. Without it every timer that wakes late (a sleep
    /// overshoots by a millisecond or so) would lose link time, and the link would carry less
    /// than its rate while busy (2.5 % less, measured at 10 MB/s with 500 kB pieces).
    static let queueSeconds = 0.02

    /// Sleeps as long as `count` bytes take on the shaped link. An idle link earns no more than
    /// its queue's credit, so a photo after a pause goes at the link's speed too, as on a real
    /// radio link.
    private mutating func throttle(_ count: Int) {
        guard let rate = faults.bytesPerSecond, rate > 0 else { return }
        let now = SocketClock.now()
        linkFreeAt = max(now - Self.queueSeconds, linkFreeAt) + Double(count) / Double(rate)
        let wait = linkFreeAt - now
        if wait > 0 {
            usleep(useconds_t(min(wait, 5) * 1_000_000))
        }
    }
}
