#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What went wrong on a socket, with the operation, the peer and the system's own words,
/// so that a user can tell "nothing listens there" from "the camera stopped answering".
public enum SocketError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The host name or address could not be turned into an IPv4/IPv6 address.
    case cannotResolve(host: String, reason: String)
    /// A system call failed; `operation` names it (socket, bind, listen, accept, connect, read, write).
    case system(operation: String, peer: String, errno: Int32)
    /// The operation did not finish within its deadline.
    case timedOut(operation: String, peer: String, seconds: Double)
    /// The peer closed the connection (end of stream while more bytes were expected).
    case closedByPeer(peer: String)
    /// The socket was already closed on this side.
    case closed

    public var description: String {
        switch self {
        case .cannotResolve(let host, let reason):
            return "cannot resolve host '\(host)': \(reason)"
        case .system(let operation, let peer, let code):
            let text = String(cString: strerror(code))
            return peer.isEmpty
                ? "\(operation) failed: \(text) (errno \(code))"
                : "\(operation) \(peer) failed: \(text) (errno \(code))"
        case .timedOut(let operation, let peer, let seconds):
            return "\(operation) \(peer) timed out after \(formatSeconds(seconds)) s"
        case .closedByPeer(let peer):
            return "connection closed by \(peer)"
        case .closed:
            return "socket already closed"
        }
    }

    /// The errno of a failed system call, if that is what this error is.
    public var errnoValue: Int32? {
        if case .system(_, _, let code) = self { return code }
        return nil
    }
}

private func formatSeconds(_ value: Double) -> String {
    value.isFinite && abs(value) < 1e15 && value == value.rounded() ? String(Int(value)) : String(value)
}
