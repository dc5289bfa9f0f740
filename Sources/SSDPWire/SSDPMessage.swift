import Foundation

/// One SSDP datagram (UPnP discovery, UDP port 1900): a search (`M-SEARCH`), an announcement
/// (`NOTIFY`) or the unicast answer to a search (`HTTP/1.1 200 OK`). Pure, so that replies from
/// any device on the network are parsed and tested without sockets.
///
/// The shapes follow UPnP Device Architecture 1.0 and what cameras send; airnef (testcams.com,
/// `ssdp.py`) records the replies and announcements of a Sony A7s and a Canon 6D: header names
/// in any case, `ST` in answers, `NT` and `NTS: ssdp:alive` / `ssdp:byebye` in announcements,
/// `LOCATION` naming the device description.
public struct SSDPMessage: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case search
        case notify
        case response(status: Int)
    }

    public var kind: Kind
    /// Header names lower-cased (SSDP header names are case-insensitive), in the order sent.
    public var headers: [(name: String, value: String)]

    /// A datagram is at most this long: real announcements are a few hundred bytes.
    public static let maximumLength = 8192
    static let maximumHeaders = 64

    /// The multicast group and port every UPnP device listens on.
    public static let multicastHost = "239.255.255.250"
    public static let multicastPort: UInt16 = 1900

    public init(kind: Kind, headers: [(name: String, value: String)]) {
        self.kind = kind
        self.headers = headers.map { ($0.name.lowercased(), $0.value) }
    }

    /// Parses a datagram; lines end in CRLF or LF, the message ends at the first empty line.
    public init(parsing bytes: some Collection<UInt8>) throws(SSDPWireError) {
        guard bytes.count <= Self.maximumLength else { throw .tooLong(count: bytes.count, limit: Self.maximumLength) }
        let text = String(decoding: bytes, as: UTF8.self)
        // "\r\n" is one Character in Swift, so both line ends are named.
        var lines = text.split(omittingEmptySubsequences: false) { $0 == "\r\n" || $0 == "\n" }[...]
        let first = lines.popFirst().map(String.init) ?? ""
        let words = first.split(separator: " ", omittingEmptySubsequences: true)
        if first.hasPrefix("M-SEARCH ") {
            kind = .search
        } else if first.hasPrefix("NOTIFY ") {
            kind = .notify
        } else if words.count >= 2, words[0].hasPrefix("HTTP/1."), let status = Int(words[1]), (100...999).contains(status) {
            kind = .response(status: status)
        } else {
            throw .notSSDP(firstLine: first)
        }
        headers = []
        for line in lines {
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                throw .malformedHeader(String(line))
            }
            guard headers.count < Self.maximumHeaders else { throw .malformedHeader("more than \(Self.maximumHeaders) headers") }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            guard !name.isEmpty else { throw .malformedHeader(String(line)) }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers.append((name, value))
        }
    }

    /// The first value of header `name` (any case).
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name == wanted }?.value
    }

    /// The service or device type: `ST` in an answer, `NT` in an announcement.
    public var type: String? { header("st") ?? header("nt") }

    /// Where the device description is (`LOCATION`).
    public var location: String? { header("location") }

    /// The unique service name, `uuid:…::TYPE`.
    public var uniqueServiceName: String? { header("usn") }

    /// False for an announcement that the device is leaving (`NTS: ssdp:byebye`): Canon bodies
    /// send one when they go to sleep.
    public var isAlive: Bool {
        guard kind == .notify else { return true }
        return header("nts")?.lowercased() == "ssdp:alive"
    }

    /// The datagram as sent: start line, headers, an empty line.
    public func encoded() -> [UInt8] {
        let start: String
        switch kind {
        case .search: start = "M-SEARCH * HTTP/1.1"
        case .notify: start = "NOTIFY * HTTP/1.1"
        case .response(let status): start = "HTTP/1.1 \(status) \(status == 200 ? "OK" : "Status")"
        }
        let lines = [start] + headers.map { "\($0.name.uppercased()): \($0.value)" }
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    /// A search for `target` (`ssdp:all` or a service type); devices answer within `maxWait`
    /// seconds (`MX`), each after a random delay so that a network's answers do not collide.
    public static func search(
        target: String, maxWait: Int,
        host: String = "\(multicastHost):\(multicastPort)"
    ) -> SSDPMessage {
        SSDPMessage(
            kind: .search,
            headers: [
                ("HOST", host), ("MAN", "\"ssdp:discover\""), ("MX", String(maxWait)),
                ("ST", target),
            ])
    }

    /// A device's answer to a search for `type`.
    public static func answer(type: String, location: String, uniqueServiceName: String, server: String) -> SSDPMessage {
        SSDPMessage(
            kind: .response(status: 200),
            headers: [
                ("CACHE-CONTROL", "max-age=1800"), ("EXT", ""), ("LOCATION", location), ("SERVER", server),
                ("ST", type), ("USN", uniqueServiceName),
            ])
    }

    public static func == (lhs: SSDPMessage, rhs: SSDPMessage) -> Bool {
        lhs.kind == rhs.kind && lhs.headers.map(\.name) == rhs.headers.map(\.name)
            && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }
}
