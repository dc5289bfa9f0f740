import Foundation
import Intake
import RelayCore
import RunEvents
import Spool

/// How `relay run --http` receives: where it listens, who may send, and its limits.
public struct HTTPInboxOptions: Sendable {
    /// The address to listen on; `0.0.0.0` (every IPv4 address) unless one is given.
    public var host: String
    public var port: UInt16
    public var logins: [HTTPInboxLogin]
    /// RAW files are spooled too (otherwise refused with 415).
    public var includeRAW: Bool
    /// Connections at once; more wait for the system to accept them.
    public var maxSessions: Int
    /// Connections at once from one address, so that one host on a venue network cannot take
    /// every slot from the photographers (a field relay uses one per upload worker). Not applied
    /// when the inbox listens on loopback only: every sender then comes through one proxy (TLS in
    /// front of it) or from this machine, and shares that one address.
    public var maxSessionsPerAddress: Int

    /// The limit per address libmicrohttpd is given: 0, none, on loopback.
    var effectiveSessionsPerAddress: Int { ListenAddress.isLoopback(host) ? 0 : maxSessionsPerAddress }
    /// A bigger body is refused with 413 before or as it arrives.
    public var maxBodyBytes: Int64
    /// A connection silent this long is closed (a request cut off this way keeps nothing).
    public var idleSeconds: TimeInterval

    public init(
        host: String = "0.0.0.0", port: UInt16 = 8080, logins: [HTTPInboxLogin], includeRAW: Bool = false, maxSessions: Int = 32,
        maxSessionsPerAddress: Int = 8, maxBodyBytes: Int64 = 512_000_000, idleSeconds: TimeInterval = 60
    ) {
        self.host = host
        self.port = port
        self.logins = logins
        self.includeRAW = includeRAW
        self.maxSessions = maxSessions
        self.maxSessionsPerAddress = maxSessionsPerAddress
        self.maxBodyBytes = maxBodyBytes
        self.idleSeconds = idleSeconds
    }

    /// Said once when the inbox listens beyond this machine: tokens and photos then cross the
    /// network in the clear, unless a TLS proxy stands in front (README: the HTTP inbox).
    public var cleartextWarning: String? {
        guard !ListenAddress.isLoopback(host) else { return nil }
        return "http: the inbox speaks plain HTTP on \(host):\(port): tokens and photos cross the network in the clear; "
            + "put a TLS proxy in front of it (README, the HTTP inbox) or listen on 127.0.0.1 behind one"
    }
}

extension HTTPInboxOptions: SourceSetting {
    public var label: String { "http \(host):\(port)" }

    public func makeSource(spool: Spool, home: RelayHome, report: SourceReporter) throws -> any PhotoSource {
        try HTTPInboxSource(options: self, spool: spool, home: home, report: report)
    }
}
