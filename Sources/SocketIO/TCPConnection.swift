import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One TCP stream with a deadline on every connect, read and write: cameras stall, and a call
/// that can hang forever hangs the whole tether.
///
/// A connection is meant to be owned by one thread or actor at a time (PTP is one transaction
/// at a time anyway). It is `@unchecked Sendable` so that it can be handed from the accepting
/// thread to its owner; the only mutable state, whether the descriptor is still open, is guarded
/// by its `SocketDescriptor` so that the descriptor is released exactly once. Only the owner may `close()`: a
/// descriptor closed under another thread's poll can be reused by the system meanwhile. To stop
/// an owner blocked in a read from outside, call `shutdown()`, which is safe from any thread.
public final class TCPConnection: @unchecked Sendable {
    /// "host:port" of the other side, for messages.
    public let peer: String
    private let descriptor: SocketDescriptor

    init(adopting fd: Int32, peer: String) {
        descriptor = SocketDescriptor(fd)
        self.peer = peer
        SocketSystem.configureStream(fd)
    }

    deinit { close() }

    /// Connects to `host:port`, trying each resolved address until one answers within `timeout`.
    public static func connect(host: String, port: UInt16, timeout: Double) throws -> TCPConnection {
        let deadline = SocketSystem.now() + timeout
        let peer = "\(host):\(port)"
        var lastError = SocketError.timedOut(operation: "connect to", peer: peer, seconds: timeout)
        for address in try SocketSystem.resolve(host: host, port: port, passive: false) {
            guard let fd = SocketSystem.openStream(family: address.family) else {
                lastError = .system(operation: "socket for", peer: peer, errno: errno)
                continue
            }
            SocketSystem.setNonBlocking(fd)
            let status = address.withSockaddr { Glibc_or_Darwin_connect(fd, $0, $1) }
            if status == 0 {
                return TCPConnection(adopting: fd, peer: peer)
            }
            let code = errno
            guard code == EINPROGRESS || code == EINTR else {
                Glibc_or_Darwin_close(fd)
                lastError = .system(operation: "connect to", peer: peer, errno: code)
                continue
            }
            let ready: Bool
            do {
                ready = try SocketSystem.wait(fd, events: Int16(POLLOUT), until: deadline)
            } catch {
                Glibc_or_Darwin_close(fd)
                throw error
            }
            guard ready else {
                Glibc_or_Darwin_close(fd)
                throw SocketError.timedOut(operation: "connect to", peer: peer, seconds: timeout)
            }
            var soError: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length)
            if soError == 0 {
                return TCPConnection(adopting: fd, peer: peer)
            }
            Glibc_or_Darwin_close(fd)
            lastError = .system(operation: "connect to", peer: peer, errno: soError)
        }
        throw lastError
    }

    /// Reads whatever is available (at most `maxCount` bytes, and at most 1 MiB per call),
    /// waiting up to `timeout` for the first byte. An empty result means the peer closed the
    /// stream in an orderly way.
    public func readSome(maxCount: Int, timeout: Double) throws -> [UInt8] {
        let fd = try openDescriptor()
        let deadline = SocketSystem.now() + timeout
        let count = min(max(1, maxCount), 1 << 20)
        var buffer = [UInt8](repeating: 0, count: count)
        while true {
            let received = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, count, 0) }
            if received > 0 {
                buffer.removeSubrange(received...)
                return buffer
            }
            if received == 0 { return [] }
            let code = errno
            if code == EINTR { continue }
            guard code == EAGAIN || code == EWOULDBLOCK else {
                throw SocketError.system(operation: "read from", peer: peer, errno: code)
            }
            guard try SocketSystem.wait(fd, events: Int16(POLLIN), until: deadline) else {
                throw SocketError.timedOut(operation: "read from", peer: peer, seconds: timeout)
            }
        }
    }

    /// Reads exactly `count` bytes within `timeout` overall; the end of the stream before that
    /// is `SocketError.closedByPeer`.
    public func readExactly(_ count: Int, timeout: Double) throws -> [UInt8] {
        let deadline = SocketSystem.now() + timeout
        var result: [UInt8] = []
        result.reserveCapacity(max(0, min(count, 1 << 20)))
        while result.count < count {
            let left = max(0, deadline - SocketSystem.now())
            let chunk = try readSome(maxCount: min(count - result.count, 1 << 16), timeout: left)
            if chunk.isEmpty { throw SocketError.closedByPeer(peer: peer) }
            result.append(contentsOf: chunk)
        }
        return result
    }

    /// Writes all of `bytes` within `timeout` overall.
    public func write(_ bytes: [UInt8], timeout: Double) throws {
        try bytes.withUnsafeBytes { try write($0, timeout: timeout) }
    }

    /// Writes all of `buffer` within `timeout` overall.
    public func write(_ buffer: UnsafeRawBufferPointer, timeout: Double) throws {
        let fd = try openDescriptor()
        let deadline = SocketSystem.now() + timeout
        var offset = 0
        while offset < buffer.count {
            let sent = send(fd, buffer.baseAddress! + offset, buffer.count - offset, SocketSystem.sendFlags)
            if sent > 0 {
                offset += sent
                continue
            }
            let code = errno
            if sent < 0 && code == EINTR { continue }
            guard sent == 0 || code == EAGAIN || code == EWOULDBLOCK else {
                if code == EPIPE || code == ECONNRESET { throw SocketError.closedByPeer(peer: peer) }
                throw SocketError.system(operation: "write to", peer: peer, errno: code)
            }
            guard try SocketSystem.wait(fd, events: Int16(POLLOUT), until: deadline) else {
                throw SocketError.timedOut(operation: "write to", peer: peer, seconds: timeout)
            }
        }
    }

    /// Waits up to `timeout` for bytes (or the end of the stream) to be readable.
    public func waitReadable(timeout: Double) throws -> Bool {
        try SocketSystem.wait(try openDescriptor(), events: Int16(POLLIN), until: SocketSystem.now() + timeout)
    }

    /// Waits up to `timeout` until at least one of `connections` is readable; returns one flag
    /// per connection. Lets one thread serve a command and an event channel together.
    public static func waitReadable(_ connections: [TCPConnection], timeout: Double) throws -> [Bool] {
        var entries = try connections.map { pollfd(fd: try $0.openDescriptor(), events: Int16(POLLIN), revents: 0) }
        let deadline = SocketSystem.now() + timeout
        while true {
            let result = poll(&entries, nfds_t(entries.count), SocketSystem.pollMilliseconds(until: deadline))
            if result >= 0 { return entries.map { $0.revents != 0 } }
            if errno == EINTR { continue }
            throw SocketError.system(operation: "poll", peer: "", errno: errno)
        }
    }

    /// The open descriptor, for a TLS layer that reads and writes through it. Only the owner
    /// thread may use it, as only the owner may close the connection.
    public func descriptorForTLS() throws -> Int32 {
        try openDescriptor()
    }

    /// Waits up to `timeout` until bytes can be written.
    public func waitWritable(timeout: Double) throws -> Bool {
        try SocketSystem.wait(try openDescriptor(), events: Int16(POLLOUT), until: SocketSystem.now() + timeout)
    }

    /// "host:port" of this side: the address the peer reached (an FTP server names it in its
    /// PASV reply).
    public func localAddress() throws -> String {
        let fd = try openDescriptor()
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw SocketError.system(operation: "getsockname for", peer: peer, errno: errno) }
        return withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SocketSystem.describe($0) }
        }
    }

    /// Keeps TCP urgent data in the byte stream (SO_OOBINLINE, as vsftpd sets on its control
    /// connections): FTP clients send ABOR, or the Telnet bytes before it, as urgent data (RFC
    /// 959 section 4.1.3), and without this the kernel takes that byte out of the stream.
    public func receiveUrgentDataInline() {
        descriptor.whileOpen { SocketSystem.setOption($0, SOL_SOCKET, SO_OOBINLINE, 1) }
    }

    /// Stops both directions at once, so that a peer blocked in read sees the end promptly;
    /// the descriptor stays allocated until `close()`.
    public func shutdown() {
        descriptor.whileOpen { _ = Glibc_or_Darwin_shutdown($0) }
    }

    /// Ends a connection the way a peer expects at a clean end: this side's end of the stream
    /// first (FIN), then what the peer still sends is read and dropped until it closes too or
    /// `timeout` passes, then the descriptor is released. Closing with bytes unread, or with the
    /// peer still writing, would answer it with a reset instead, which it takes for a failure.
    public func closeGracefully(timeout: Double) {
        descriptor.whileOpen { fd in
            #if canImport(Glibc)
                _ = Glibc.shutdown(fd, Int32(SHUT_WR))
            #else
                _ = Darwin.shutdown(fd, SHUT_WR)
            #endif
        }
        let deadline = SocketSystem.now() + timeout
        while SocketSystem.now() < deadline,
            let readable = try? waitReadable(timeout: max(0, deadline - SocketSystem.now())), readable,
            let bytes = try? readSome(maxCount: 1 << 16, timeout: max(0, deadline - SocketSystem.now())), !bytes.isEmpty
        {}
        close()
    }

    /// Releases the descriptor; later calls fail with `SocketError.closed`. Safe to call twice.
    public func close() {
        descriptor.close()
    }

    /// True until `close()`.
    public var isClosed: Bool { descriptor.isClosed }

    private func openDescriptor() throws -> Int32 {
        try descriptor.get()
    }
}

@inline(__always) func Glibc_or_Darwin_close(_ fd: Int32) {
    #if canImport(Glibc)
        _ = Glibc.close(fd)
    #else
        _ = Darwin.close(fd)
    #endif
}

@inline(__always) func Glibc_or_Darwin_shutdown(_ fd: Int32) -> Int32 {
    #if canImport(Glibc)
        return Glibc.shutdown(fd, Int32(SHUT_RDWR))
    #else
        return Darwin.shutdown(fd, SHUT_RDWR)
    #endif
}

@inline(__always) func Glibc_or_Darwin_connect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    #if canImport(Glibc)
        return Glibc.connect(fd, address, length)
    #else
        return Darwin.connect(fd, address, length)
    #endif
}
