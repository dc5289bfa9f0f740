import Foundation

/// An address and port for a data connection, as `PORT`/`PASV` (RFC 959: six decimal bytes)
/// and `EPRT`/`EPSV` (RFC 2428: `|proto|address|port|`) write it.
public struct FTPHostPort: Sendable, Equatable {
    /// A numeric IPv4 or IPv6 address (never a name: RFC 2428 allows none).
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Why an address argument could not be read.
    public enum FormatError: Error, Sendable, Equatable, CustomStringConvertible {
        case malformed(String)

        public var description: String {
            switch self {
            case .malformed(let reason): return reason
            }
        }
    }

    /// Reads `h1,h2,h3,h4,p1,p2` (PORT's argument, also inside a PASV reply).
    public init(portArgument text: String) throws(FormatError) {
        let fields = text.trimmingCharacters(in: .whitespaces).split(separator: ",", omittingEmptySubsequences: false)
        guard fields.count == 6 else { throw .malformed("expected six numbers h1,h2,h3,h4,p1,p2") }
        var bytes: [UInt8] = []
        for field in fields {
            guard field.count <= 3, let byte = UInt8(field) else { throw .malformed("each number must be from 0 to 255") }
            bytes.append(byte)
        }
        host = bytes[0..<4].map(String.init).joined(separator: ".")
        port = UInt16(bytes[4]) << 8 | UInt16(bytes[5])
        guard port != 0 else { throw .malformed("port 0 is not a port") }
    }

    /// Reads `|1|132.235.1.2|6275|` or `|2|::1|6275|` (EPRT's argument; the first character
    /// is the delimiter).
    public init(eprtArgument text: String) throws(FormatError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let delimiter = trimmed.first, (33...126).contains(delimiter.asciiValue ?? 0) else {
            throw .malformed("expected |protocol|address|port|")
        }
        let fields = trimmed.split(separator: delimiter, omittingEmptySubsequences: false)
        guard fields.count == 5, fields[0].isEmpty, fields[4].isEmpty else { throw .malformed("expected |protocol|address|port|") }
        guard let port = UInt16(fields[3]), port != 0 else { throw .malformed("the port must be from 1 to 65535") }
        switch fields[1] {
        case "1":
            guard Self.isIPv4(fields[2]) else { throw .malformed("'\(fields[2])' is not an IPv4 address") }
        case "2":
            guard Self.isIPv6(fields[2]) else { throw .malformed("'\(fields[2])' is not an IPv6 address") }
        default:
            throw .malformed("network protocol \(fields[1]) is not supported; use 1 (IPv4) or 2 (IPv6)")
        }
        host = String(fields[2])
        self.port = port
    }

    /// The six numbers of a PASV reply or PORT argument; nil for an IPv6 host.
    public var portArgument: String? {
        guard Self.isIPv4(Substring(host)) else { return nil }
        return host.split(separator: ".").joined(separator: ",") + ",\(port >> 8),\(port & 0xFF)"
    }

    /// The EPRT argument for this address.
    public var eprtArgument: String {
        "|\(Self.isIPv4(Substring(host)) ? 1 : 2)|\(host)|\(port)|"
    }

    static func isIPv4(_ text: Substring) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { !$0.isEmpty && $0.count <= 3 && UInt8($0) != nil }
    }

    static func isIPv6(_ text: Substring) -> Bool {
        !text.isEmpty && text.count <= 45 && text.contains(":")
            && text.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
    }
}
