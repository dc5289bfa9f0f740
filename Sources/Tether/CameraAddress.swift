import Foundation

/// Where `relay run --camera` finds its camera: `ptpip://HOST[:PORT]`, or `auto` to look for one
/// on the local network.
public enum CameraAddress: Equatable, Sendable, CustomStringConvertible {
    case ptpip(host: String, port: UInt16)
    case auto

    /// The PTP/IP port cameras listen on.
    public static let defaultPort: UInt16 = 15740

    /// Parses the `--camera` value; the error says which forms are accepted.
    public static func parse(_ text: String) throws(CameraAddressError) -> CameraAddress {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.lowercased() == "auto" { return .auto }
        let scheme = "ptpip://"
        guard trimmed.lowercased().hasPrefix(scheme) else { throw CameraAddressError(text: text) }
        var rest = Substring(trimmed.dropFirst(scheme.count))
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw CameraAddressError(text: text) }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw CameraAddressError(text: text) }
                portText = after.dropFirst()
            }
        } else if let colon = rest.firstIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        guard !host.isEmpty, !host.contains(where: { $0 == "/" || $0 == "@" || $0 == "?" || $0.isWhitespace }) else {
            throw CameraAddressError(text: text)
        }
        var port = defaultPort
        if let portText {
            guard let number = UInt16(portText), number > 0 else { throw CameraAddressError(text: text) }
            port = number
        }
        return .ptpip(host: String(host), port: port)
    }

    public var description: String {
        switch self {
        case .auto: return "auto"
        case .ptpip(let host, let port):
            let shown = host.contains(":") ? "[\(host)]" : host
            return port == Self.defaultPort ? "ptpip://\(shown)" : "ptpip://\(shown):\(port)"
        }
    }
}

/// A `--camera` value that is neither `ptpip://HOST[:PORT]` nor `auto`.
public struct CameraAddressError: Error, Equatable, CustomStringConvertible {
    public let text: String

    public var description: String {
        "--camera '\(text)' is not a camera address: give ptpip://HOST[:PORT] (e.g. ptpip://192.168.1.2) or auto, "
            + "or for libgphoto2 usb, usb:BUS,DEV or gphoto2:PORT"
    }
}
