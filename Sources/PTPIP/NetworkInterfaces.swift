#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The machine's IPv4 networks, for `relay discover` without `--range`.
public enum NetworkInterfaces {
    /// One IPv4 address of an interface that is up and not loopback.
    public struct IPv4: Sendable, Equatable {
        public var name: String
        /// Host order.
        public var address: UInt32
        public var netmask: UInt32
    }

    public static func ipv4() -> [IPv4] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(first) }
        var result: [IPv4] = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            let flags = Int32(entry.pointee.ifa_flags)
            guard flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0,
                let address = entry.pointee.ifa_addr, let mask = entry.pointee.ifa_netmask,
                Int32(address.pointee.sa_family) == AF_INET
            else { continue }
            func host(_ pointer: UnsafeMutablePointer<sockaddr>) -> UInt32 {
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt32(bigEndian: $0.pointee.sin_addr.s_addr) }
            }
            result.append(IPv4(name: String(cString: entry.pointee.ifa_name), address: host(address), netmask: host(mask)))
        }
        return result
    }

    /// The addresses to scan by default: the neighbours on every network this machine is on.
    public static func defaultScanAddresses() -> [String] {
        var seen = Set<String>()
        return ipv4().flatMap { AddressRange.neighbours(of: $0.address, netmask: $0.netmask) }.filter { seen.insert($0).inserted }
    }
}
