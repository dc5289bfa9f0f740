#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Small wrappers over the C socket calls that differ between Linux and Darwin, kept in one
/// place so that the connection and listener code reads the same on both.
enum SocketSystem {
    #if canImport(Glibc)
        static let streamType = Int32(SOCK_STREAM.rawValue)
        static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
        static let streamType = SOCK_STREAM
        static let sendFlags: Int32 = 0
    #endif

    /// Seconds on a clock that never jumps, for deadlines.
    static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1_000_000_000
    }

    /// Milliseconds left until `deadline`, clamped for poll().
    static func pollMilliseconds(until deadline: Double) -> Int32 {
        let left = (deadline - now()) * 1000
        guard left > 0, !left.isNaN else { return 0 }
        return Int32(min(left.rounded(.up), Double(Int32.max)))
    }

    /// accept(2) errors that belong to one failed incoming connection, not to the listener: Linux
    /// passes pending network errors on through accept, and the next connection may be fine.
    #if os(Linux)
        static let retryableAcceptErrors: [Int32] = [
            EINTR, ECONNABORTED, EPROTO, ENETDOWN, ENOPROTOOPT, EHOSTDOWN, ENONET, EHOSTUNREACH, EOPNOTSUPP, ENETUNREACH,
        ]
    #else
        static let retryableAcceptErrors: [Int32] = [EINTR, ECONNABORTED]
    #endif

    /// A new TCP socket kept out of child processes, or nil with `errno` set.
    static func openStream(family: Int32) -> Int32? {
        let fd = socket(family, streamType, 0)
        guard fd >= 0 else { return nil }
        setCloseOnExec(fd)
        return fd
    }

    /// Keeps the descriptor out of child processes (a spawned gphoto2 must not hold our sockets).
    static func setCloseOnExec(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFD, 0)
        if flags >= 0 { _ = fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
    }

    static func setNonBlocking(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL, 0)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
    }

    static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) {
        var v = value
        _ = setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Options every relay socket wants: no Nagle delay (PTP/IP writes header and payload
    /// separately) and, on Darwin, no SIGPIPE from a write to a closed peer.
    static func configureStream(_ fd: Int32) {
        setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
        #if canImport(Darwin)
            setOption(fd, SOL_SOCKET, SO_NOSIGPIPE, 1)
        #endif
        setNonBlocking(fd)
    }

    /// Waits for `events` on `fd` until `deadline`; true when ready, false on timeout.
    static func wait(_ fd: Int32, events: Int16, until deadline: Double) throws -> Bool {
        while true {
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let result = poll(&entry, 1, pollMilliseconds(until: deadline))
            if result > 0 { return true }
            if result == 0 { return false }
            if errno == EINTR { continue }
            throw SocketError.system(operation: "poll", peer: "", errno: errno)
        }
    }

    /// Resolves `host` and `port` to socket addresses (numeric port, TCP).
    static func resolve(host: String, port: UInt16, passive: Bool) throws -> [ResolvedAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = streamType
        hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw SocketError.cannotResolve(host: host, reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(first) }
        var result: [ResolvedAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            if let address = entry.pointee.ai_addr, entry.pointee.ai_addrlen > 0 {
                let length = Int(entry.pointee.ai_addrlen)
                let bytes = [UInt8](UnsafeRawBufferPointer(start: UnsafeRawPointer(address), count: length))
                result.append(ResolvedAddress(family: entry.pointee.ai_family, bytes: bytes))
            }
            cursor = entry.pointee.ai_next
        }
        if result.isEmpty {
            throw SocketError.cannotResolve(host: host, reason: "no addresses")
        }
        return result
    }

    /// "host:port" text of a connected or bound socket address.
    static func describe(_ storage: UnsafePointer<sockaddr>) -> String {
        var hostBuffer = [CChar](repeating: 0, count: 64)
        let family = Int32(storage.pointee.sa_family)
        if family == AF_INET {
            return storage.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                var addr = sin.pointee.sin_addr
                inet_ntop(AF_INET, &addr, &hostBuffer, socklen_t(hostBuffer.count))
                return "\(cText(hostBuffer)):\(UInt16(bigEndian: sin.pointee.sin_port))"
            }
        }
        if family == AF_INET6 {
            return storage.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin in
                var addr = sin.pointee.sin6_addr
                inet_ntop(AF_INET6, &addr, &hostBuffer, socklen_t(hostBuffer.count))
                return "[\(cText(hostBuffer))]:\(UInt16(bigEndian: sin.pointee.sin6_port))"
            }
        }
        return "unknown peer"
    }

    static func port(of storage: UnsafePointer<sockaddr>) -> UInt16 {
        let family = Int32(storage.pointee.sa_family)
        if family == AF_INET {
            return storage.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
        if family == AF_INET6 {
            return storage.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
        }
        return 0
    }
}

/// One socket address from getaddrinfo, copied out so that the list can be freed.
struct ResolvedAddress {
    let family: Int32
    let bytes: [UInt8]

    /// `bytes` is never empty: `resolve` skips empty addresses.
    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        bytes.withUnsafeBytes { raw in
            body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(bytes.count))
        }
    }
}

/// The text of a NUL-terminated C buffer.
func cText(_ buffer: [CChar]) -> String {
    let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    return String(decoding: bytes, as: UTF8.self)
}
