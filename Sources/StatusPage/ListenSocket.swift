import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A listening socket bound by relay itself and handed to libmicrohttpd, so that a port in use
/// is told apart (by its errno) from the server failing to start.
struct ListenSocket {
    let descriptor: Int32
    /// The address with the port actually bound (port 0 asks for a free one).
    let address: StatusAddress

    static func open(_ address: StatusAddress) throws(StatusServerError) -> ListenSocket {
        let family = address.family == .ipv6 ? AF_INET6 : AF_INET
        #if canImport(Glibc)
            let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
            let fd = socket(family, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw .cannotListen(address, String(cString: strerror(errno))) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let bound: Int32
        if address.family == .ipv6 {
            var socketAddress = sockaddr_in6()
            socketAddress.sin6_family = sa_family_t(AF_INET6)
            socketAddress.sin6_port = address.port.bigEndian
            inet_pton(AF_INET6, address.host, &socketAddress.sin6_addr)
            bound = bindSocket(fd, socketAddress)
        } else {
            var socketAddress = sockaddr_in()
            socketAddress.sin_family = sa_family_t(AF_INET)
            socketAddress.sin_port = address.port.bigEndian
            inet_pton(AF_INET, address.host, &socketAddress.sin_addr)
            bound = bindSocket(fd, socketAddress)
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            let error = errno
            close(fd)
            switch error {
            case EADDRINUSE: throw .portInUse(address)
            case EACCES: throw .privilegedPort(address)
            case EADDRNOTAVAIL: throw .notThisMachine(address)
            default: throw .cannotListen(address, String(cString: strerror(error)))
            }
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let port: UInt16 = withUnsafePointer(to: &storage) { pointer in
            if address.family == .ipv6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
        var actual = address
        actual.port = port
        return ListenSocket(descriptor: fd, address: actual)
    }

    /// `bind(2)` with a `sockaddr_in` or `sockaddr_in6`.
    private static func bindSocket<Address>(_ fd: Int32, _ address: Address) -> Int32 {
        withUnsafePointer(to: address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<Address>.size)) }
        }
    }
}
