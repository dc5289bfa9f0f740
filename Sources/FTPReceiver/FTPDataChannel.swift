import FTPWire
import Foundation
import RelayCore
import SocketIO

/// The data connection a session prepared with PASV/EPSV (relay listens) or PORT/EPRT (relay
/// connects). Either way the other end must be the control connection's own address: a PORT to
/// another host (the "FTP bounce" of RFC 2577) is refused when it is given, and a passive
/// connection from another address is closed and waited past.
enum FTPDataChannel {
    case passive(TCPListener)
    case active(FTPHostPort)

    /// Why no data connection could be made (answered 425).
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Opens the connection; `refused` is told of each passive connection from a wrong address.
    /// A passive wait ends early when relay stops.
    func open(controlHost: String, timeout: TimeInterval, stop: StopFlag, refused: (String) -> Void) throws(Failure) -> TCPConnection {
        switch self {
        case .active(let target):
            do {
                return try TCPConnection.connect(host: target.host, port: target.port, timeout: timeout)
            } catch {
                throw Failure(description: "cannot connect to \(target.host) port \(target.port): \(error)")
            }
        case .passive(let listener):
            let deadline = Date().addingTimeInterval(timeout)
            while true {
                let left = deadline.timeIntervalSinceNow
                guard left > 0, !stop.isStopped else { throw Failure(description: "no data connection came within \(Int(timeout)) s") }
                let connection: TCPConnection?
                do { connection = try listener.accept(timeout: min(left, 1)) } catch {
                    throw Failure(description: "\(error)")
                }
                guard let connection else { continue }
                if FTPPeer.host(of: connection.peer) == controlHost { return connection }
                refused(connection.peer)
                connection.close()
            }
        }
    }

    func close() {
        if case .passive(let listener) = self { listener.close() }
    }
}

/// Addresses as SocketIO writes them ("1.2.3.4:21", "[::1]:21").
enum FTPPeer {
    /// The host part of "host:port", without brackets; IPv4-mapped IPv6 addresses as IPv4.
    static func host(of peer: String) -> String {
        var host = peer
        if peer.hasPrefix("["), let close = peer.firstIndex(of: "]") {
            host = String(peer[peer.index(after: peer.startIndex)..<close])
        } else if let colon = peer.lastIndex(of: ":") {
            host = String(peer[..<colon])
        }
        if host.lowercased().hasPrefix("::ffff:"), host.contains(".") { host = String(host.dropFirst(7)) }
        return host
    }
}
