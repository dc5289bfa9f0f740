import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A listening TCP socket bound to one address. Port 0 asks the system for a free port, which
/// `port` then reports: tests start servers that way so that parallel runs never collide.
///
/// `@unchecked Sendable` for the same reason as `TCPConnection`: the descriptor's open state is
/// guarded by its `SocketDescriptor`. As there, only the owner closes it; an accept loop stops by its own
/// flag between the bounded `accept(timeout:)` calls.
public final class TCPListener: @unchecked Sendable {
    /// The port actually bound.
    public let port: UInt16
    /// The address as given, for messages.
    public let host: String
    private let descriptor: SocketDescriptor

    /// Binds `host:port` (SO_REUSEADDR, so that a restarted server can take its port back at once)
    /// and starts listening.
    public init(host: String, port: UInt16, backlog: Int32 = 8) throws {
        self.host = host
        let peer = "\(host):\(port)"
        var lastError = SocketError.cannotResolve(host: host, reason: "no addresses")
        for address in try SocketSystem.resolve(host: host, port: port, passive: true) {
            guard let fd = SocketSystem.openStream(family: address.family) else {
                lastError = .system(operation: "socket for", peer: peer, errno: errno)
                continue
            }
            SocketSystem.setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
            let bound = address.withSockaddr { bind(fd, $0, $1) }
            if bound != 0 {
                lastError = .system(operation: "bind", peer: peer, errno: errno)
                Glibc_or_Darwin_close(fd)
                continue
            }
            if listen(fd, backlog) != 0 {
                lastError = .system(operation: "listen on", peer: peer, errno: errno)
                Glibc_or_Darwin_close(fd)
                continue
            }
            SocketSystem.setNonBlocking(fd)
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let named = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            if named != 0 {
                lastError = .system(operation: "getsockname", peer: peer, errno: errno)
                Glibc_or_Darwin_close(fd)
                continue
            }
            descriptor = SocketDescriptor(fd)
            self.port = withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SocketSystem.port(of: $0) }
            }
            return
        }
        throw lastError
    }

    deinit { close() }

    /// Waits up to `timeout` for a client; nil when none came.
    public func accept(timeout: Double) throws -> TCPConnection? {
        let deadline = SocketSystem.now() + timeout
        while true {
            let fd = try openDescriptor()
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let client = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { acceptSystemCall(fd, $0, &length) }
            }
            if client >= 0 {
                SocketSystem.setCloseOnExec(client)
                let peer = withUnsafePointer(to: &storage) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SocketSystem.describe($0) }
                }
                return TCPConnection(adopting: client, peer: peer)
            }
            let code = errno
            if SocketSystem.retryableAcceptErrors.contains(code) { continue }
            guard code == EAGAIN || code == EWOULDBLOCK else {
                throw SocketError.system(operation: "accept on", peer: "\(host):\(port)", errno: code)
            }
            guard try SocketSystem.wait(fd, events: Int16(POLLIN), until: deadline) else { return nil }
        }
    }

    /// Hands the listening descriptor to a server library that accepts on it and closes it
    /// (libmicrohttpd), so that relay binds it itself and reports a port in use with its errno.
    public func handOver() throws -> Int32 {
        try descriptor.release()
    }

    /// Stops listening; a later `accept` fails with `SocketError.closed`. Safe to call twice.
    public func close() {
        descriptor.close()
    }

    private func openDescriptor() throws -> Int32 {
        try descriptor.get()
    }
}

@inline(__always) private func acceptSystemCall(
    _ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: UnsafeMutablePointer<socklen_t>
) -> Int32 {
    #if canImport(Glibc)
        return Glibc.accept(fd, address, length)
    #else
        return Darwin.accept(fd, address, length)
    #endif
}
