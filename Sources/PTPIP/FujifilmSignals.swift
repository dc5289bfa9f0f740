import SocketIO

/// How a Fujifilm body shows itself to a standard PTP/IP client, so that relay can say so instead
/// of waiting for an event channel that never comes.
///
/// Fujifilm's Wi-Fi protocol is PTP-like but not PTP/IP: its own ports (55740 for commands,
/// 55741 events, 55742 live view), an init request carrying the magic 0x8F53E4F2 where the
/// protocol version goes, and an InitCommandAck of 0x44 bytes with no protocol version at its end
/// (libgphoto2 `camlibs/ptp2/fujiptpip.c`; the captured exchange in libgphoto2 issue 517). A
/// standard ack ends with version 1.0 (0x00010000), so a Fuji ack read as a standard one shows
/// a "version" whose major part is not 1 (the zero padding of its name).
enum FujifilmSignals {
    /// Fujifilm's command port (55741 and 55742 follow it).
    static let commandPort: UInt16 = 55740

    /// InitFail reasons a Fujifilm gives a request without its protocol magic: 0x201D (wrong
    /// protocol version) and 0x2019 (not in a state to connect), as the reverse-engineered
    /// client malc0mn/ptp-ip names them; standard bodies give 1, 2 or 3.
    static func isFujiRefusal(reason: UInt32) -> Bool {
        reason == 0x201D || reason == 0x2019
    }

    /// An InitCommandAck whose trailing protocol version is not 1.x is Fuji's shorter ack.
    static func isFujiAck(protocolVersion: UInt32) -> Bool {
        protocolVersion >> 16 != 1
    }

    /// Whether something accepts a TCP connection on Fujifilm's command port of `host` (tried
    /// when the standard port is refused or silent). No byte is sent.
    static func listens(host: String, timeout: Double) -> Bool {
        guard let connection = try? TCPConnection.connect(host: host, port: commandPort, timeout: timeout) else { return false }
        connection.close()
        return true
    }
}
