/// Why an SSDP datagram or a UPnP device description could not be read. Announcements come
/// from anything on the network (routers, TVs, printers), so a bad one is skipped, never fatal.
public enum SSDPWireError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Longer than any real announcement (a datagram or a description).
    case tooLong(count: Int, limit: Int)
    /// The first line is not an SSDP request or response line.
    case notSSDP(firstLine: String)
    /// A header line without a colon, or too many header lines.
    case malformedHeader(String)
    /// The device description is not well-formed XML or has no `<device>`.
    case malformedDescription(String)

    public var description: String {
        switch self {
        case .tooLong(let count, let limit): return "\(count) bytes, more than the \(limit) an announcement may have"
        case .notSSDP(let line): return "not an SSDP message (first line '\(line.prefix(80))')"
        case .malformedHeader(let line): return "malformed SSDP header line '\(line.prefix(80))'"
        case .malformedDescription(let reason): return "unreadable UPnP device description: \(reason)"
        }
    }
}
