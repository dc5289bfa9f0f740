import Foundation

/// Where `relay run --status [ADDRESS:]PORT` listens: a numeric address and a port. Only the
/// port given means loopback, so that the page is not on the venue's network unless asked.
public struct StatusAddress: Sendable, Equatable, CustomStringConvertible {
    public enum Family: Sendable, Equatable {
        case ipv4
        case ipv6
    }

    /// A numeric address (`127.0.0.1`, `0.0.0.0`, `::1`, `::`).
    public var host: String
    public var family: Family
    /// 0 asks the system for a free port (tests).
    public var port: UInt16

    public static let loopback = "127.0.0.1"

    public init(host: String, family: Family, port: UInt16) {
        self.host = host
        self.family = family
        self.port = port
    }

    /// Whether only this machine can reach it (127.0.0.0/8, ::1).
    public var isLoopback: Bool {
        family == .ipv4 ? host.hasPrefix("127.") : host == "::1"
    }

    /// Whether it listens on every address of the machine (0.0.0.0, ::).
    public var isWildcard: Bool {
        host == "0.0.0.0" || host == "::"
    }

    /// `127.0.0.1:8080`, `[::1]:8080`.
    public var description: String {
        family == .ipv6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Reads `8080`, `0.0.0.0:8080`, `192.168.1.5:8080`, `[::]:8080`, `[::1]:8080`, or
    /// `localhost:8080`.
    public static func parse(_ text: String) throws(StatusAddressError) -> StatusAddress {
        let text = text.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { throw .empty }
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw .unclosedBracket(text) }
            let host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { throw .missingPort(text) }
            guard IPAddressText.isIPv6(host) else { throw .notAnAddress(host) }
            return StatusAddress(host: host, family: .ipv6, port: try port(String(rest.dropFirst()), in: text))
        }
        guard let colon = text.lastIndex(of: ":") else {
            return StatusAddress(host: loopback, family: .ipv4, port: try port(text, in: text))
        }
        let host = String(text[..<colon])
        if host.contains(":") { throw .bareIPv6(text) }
        let port = try port(String(text[text.index(after: colon)...]), in: text)
        if host == "localhost" { return StatusAddress(host: loopback, family: .ipv4, port: port) }
        guard IPAddressText.isIPv4(host) else { throw .notAnAddress(host) }
        return StatusAddress(host: host, family: .ipv4, port: port)
    }

    private static func port(_ text: String, in whole: String) throws(StatusAddressError) -> UInt16 {
        guard !text.isEmpty, text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber), let port = UInt16(text) else {
            throw .badPort(whole)
        }
        return port
    }
}

/// A `--status` value relay cannot listen on.
public enum StatusAddressError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case badPort(String)
    case missingPort(String)
    case unclosedBracket(String)
    case bareIPv6(String)
    case notAnAddress(String)

    public var description: String {
        let forms = "give a port (8080, loopback only) or ADDRESS:PORT (0.0.0.0:8080 for every network, [::]:8080 for IPv6)"
        switch self {
        case .empty: return "--status needs a port: \(forms)"
        case .badPort(let text): return "--status '\(text)': the port must be a number from 0 to 65535; \(forms)"
        case .missingPort(let text): return "--status '\(text)': a port must follow the address, as in [::1]:8080"
        case .unclosedBracket(let text): return "--status '\(text)': an IPv6 address goes in brackets, as in [::1]:8080"
        case .bareIPv6(let text): return "--status '\(text)': put an IPv6 address in brackets, as in [::1]:8080"
        case .notAnAddress(let host):
            return "--status: '\(host)' is not a numeric address of this machine; \(forms) (names other than localhost are not looked up)"
        }
    }
}
