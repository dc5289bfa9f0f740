import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One IPv4 UDP socket with a deadline on every receive, for SSDP: relay's searches and their
/// answers, and the simulator's answers. Same ownership rule as `TCPConnection`: one owner
/// thread, which alone closes it.
///
/// `@unchecked Sendable`: `port` and `descriptor` are immutable after init; `descriptor` guards its open state with its own lock.
public final class UDPSocket: @unchecked Sendable {
    /// The port actually bound.
    public let port: UInt16
    private let descriptor: SocketDescriptor

    /// One datagram and who sent it.
    public struct Datagram: Sendable {
        public var bytes: [UInt8]
        /// The sender's IPv4 address, dotted.
        public var host: String
        public var port: UInt16
    }

    /// Binds `host:port` (port 0: any free port). `shared` sets SO_REUSEADDR, so that several
    /// listeners (relay and the system's own UPnP daemon) can share the SSDP port.
    public init(host: String = "0.0.0.0", port: UInt16 = 0, shared: Bool = false) throws {
        var address = try Self.socketAddress(host: host, port: port)
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_DGRAM, 0)
        #endif
        guard fd >= 0 else { throw SocketError.system(operation: "socket for", peer: "\(host):\(port)", errno: errno) }
        SocketSystem.setCloseOnExec(fd)
        if shared { SocketSystem.setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            let code = errno
            Glibc_or_Darwin_close(fd)
            throw SocketError.system(operation: "bind", peer: "\(host):\(port)", errno: code)
        }
        var named = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &named) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        SocketSystem.setNonBlocking(fd)
        descriptor = SocketDescriptor(fd)
        self.port = UInt16(bigEndian: named.sin_port)
    }

    deinit { close() }

    /// Receives multicast datagrams sent to `group` (an IPv4 multicast address) on any interface.
    public func join(group: String) throws {
        let fd = try openDescriptor()
        var request = ip_mreq()
        guard inet_pton(AF_INET, group, &request.imr_multiaddr) == 1 else {
            throw SocketError.cannotResolve(host: group, reason: "not an IPv4 multicast address")
        }
        request.imr_interface.s_addr = 0
        let status = setsockopt(fd, Int32(IPPROTO_IP), IP_ADD_MEMBERSHIP, &request, socklen_t(MemoryLayout<ip_mreq>.size))
        guard status == 0 else { throw SocketError.system(operation: "join multicast group", peer: group, errno: errno) }
    }

    /// Sends one datagram to `host:port` (an IPv4 address, unicast or multicast).
    public func send(_ bytes: [UInt8], to host: String, port: UInt16) throws {
        let fd = try openDescriptor()
        var address = try Self.socketAddress(host: host, port: port)
        let sent = bytes.withUnsafeBytes { buffer in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, buffer.baseAddress, buffer.count, SocketSystem.sendFlags, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard sent == bytes.count else { throw SocketError.system(operation: "send to", peer: "\(host):\(port)", errno: errno) }
    }

    /// Waits up to `timeout` for one datagram (cut at `maxCount` bytes); nil when none came.
    public func receive(maxCount: Int = 65_536, timeout: Double) throws -> Datagram? {
        let fd = try openDescriptor()
        guard try SocketSystem.wait(fd, events: Int16(POLLIN), until: SocketSystem.now() + timeout) else { return nil }
        var buffer = [UInt8](repeating: 0, count: max(1, maxCount))
        var sender = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let count = buffer.withUnsafeMutableBytes { raw in
            withUnsafeMutablePointer(to: &sender) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(fd, raw.baseAddress, raw.count, 0, $0, &length) }
            }
        }
        if count < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return nil }
            throw SocketError.system(operation: "receive on", peer: "udp port \(port)", errno: errno)
        }
        var text = [CChar](repeating: 0, count: 32)
        inet_ntop(AF_INET, &sender.sin_addr, &text, socklen_t(text.count))
        return Datagram(bytes: Array(buffer[..<count]), host: cText(text), port: UInt16(bigEndian: sender.sin_port))
    }

    public func close() {
        descriptor.close()
    }

    private func openDescriptor() throws -> Int32 {
        try descriptor.get()
    }

    /// A numeric IPv4 address (SSDP is IPv4 multicast; cameras' hotspots are IPv4).
    static func socketAddress(host: String, port: UInt16) throws -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw SocketError.cannotResolve(host: host, reason: "not an IPv4 address")
        }
        return address
    }
}
