import Foundation

/// The IPv4 addresses `relay discover` scans, from what the user typed or from the machine's own
/// networks. Pure, so the forms accepted are tested without a network.
public enum AddressRange {
    /// The most addresses one scan may cover (a /20): beyond that a scan takes minutes.
    public static let maximumCount = 4096

    /// Parses comma-separated parts, each `A.B.C.D`, `A.B.C.D-E.F.G.H`, `A.B.C.D-H` (the last
    /// byte) or `A.B.C.D/N` (the hosts of that network).
    public static func parse(_ text: String) throws(AddressRangeError) -> [String] {
        var result: [UInt32] = []
        for rawPart in text.split(separator: ",") {
            let part = rawPart.trimmingCharacters(in: .whitespaces)
            if let slash = part.firstIndex(of: "/") {
                guard let base = ipv4(part[..<slash]), let bits = Int(part[part.index(after: slash)...]),
                    (16...32).contains(bits)
                else { throw AddressRangeError(text: text) }
                result += hosts(network: base, prefixLength: bits, excluding: nil)
            } else if let dash = part.firstIndex(of: "-") {
                guard let first = ipv4(part[..<dash]) else { throw AddressRangeError(text: text) }
                let tail = part[part.index(after: dash)...]
                let last: UInt32
                if let full = ipv4(tail) {
                    last = full
                } else if let byte = UInt8(tail) {
                    last = (first & 0xFFFF_FF00) | UInt32(byte)
                } else {
                    throw AddressRangeError(text: text)
                }
                guard first <= last, last - first < UInt32(maximumCount) else { throw AddressRangeError(text: text) }
                result += Array(first...last)
            } else {
                guard let single = ipv4(Substring(part)) else { throw AddressRangeError(text: text) }
                result.append(single)
            }
            guard result.count <= maximumCount else { throw AddressRangeError(text: text) }
        }
        guard !result.isEmpty else { throw AddressRangeError(text: text) }
        var seen = Set<UInt32>()
        return result.filter { seen.insert($0).inserted }.map(text(of:))
    }

    /// The other hosts of the network an interface is on: its subnet, narrowed to the /24 around
    /// the address when wider (a camera hotspot is a /24; a /16 would take minutes to scan).
    public static func neighbours(of address: UInt32, netmask: UInt32) -> [String] {
        var prefix = netmask.nonzeroBitCount
        if prefix < 24 { prefix = 24 }
        guard prefix < 31 else { return [] }
        return hosts(network: address, prefixLength: prefix, excluding: address).map(text(of:))
    }

    /// The hosts of `network`/`prefixLength` (network and broadcast addresses left out).
    static func hosts(network: UInt32, prefixLength: Int, excluding: UInt32?) -> [UInt32] {
        guard prefixLength < 32 else { return [network] }
        let mask: UInt32 = prefixLength == 0 ? 0 : ~UInt32(0) << UInt32(32 - prefixLength)
        let base = network & mask
        let broadcast = base | ~mask
        guard broadcast - base >= 2 else { return [base, broadcast] }
        return ((base + 1)..<broadcast).filter { $0 != excluding }
    }

    /// `A.B.C.D` as a host-order number.
    public static func ipv4<S: StringProtocol>(_ text: S) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isNumber), let byte = UInt8(part) else { return nil }
            value = value << 8 | UInt32(byte)
        }
        return value
    }

    public static func text(of address: UInt32) -> String {
        "\(address >> 24).\(address >> 16 & 0xFF).\(address >> 8 & 0xFF).\(address & 0xFF)"
    }
}

/// A `--range` value that is not a list of addresses.
public struct AddressRangeError: Error, Equatable, CustomStringConvertible {
    public let text: String

    public var description: String {
        "--range '\(text)' is not an address range: give e.g. 192.168.1.0/24, 192.168.1.10-50, "
            + "192.168.1.10-192.168.1.60 or 10.0.0.5 (comma-separated parts, at most \(AddressRange.maximumCount) addresses)"
    }
}
