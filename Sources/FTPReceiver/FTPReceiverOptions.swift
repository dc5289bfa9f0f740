import Foundation
import RelayCore

/// How `relay run --ftp` receives: where it listens, who may log in, and its limits.
public struct FTPReceiverOptions: Sendable {
    /// The address to listen on; `0.0.0.0` (every IPv4 address) unless one is given.
    public var host: String
    /// 2121 by default: 21 needs root on most systems.
    public var port: UInt16
    public var accounts: [FTPAccount]
    /// RAW files are spooled too (otherwise received, answered 226 and counted as skipped).
    public var includeRAW: Bool
    /// Control connections at once; one more is answered 421.
    public var maxSessions: Int
    /// A bigger upload that relay keeps is cut off and answered 552 (a skipped RAW or video is
    /// drained whatever its size).
    public var maxFileBytes: Int64
    /// A control or data connection silent this long is closed.
    public var idleSeconds: TimeInterval
    /// Control connections at once from one address, so that one host on a venue network
    /// cannot take every slot from the cameras; a camera uses one or two.
    public var maxSessionsPerAddress = 4
    /// A connection that has not logged in is closed after this much silence (or `idleSeconds`
    /// when that is shorter): a camera logs in at once, and a slot held by a silent stranger
    /// is a slot a camera cannot have.
    public var loginIdleSeconds: TimeInterval = 30
    /// How long an upload cut off mid-way is kept for a REST/APPE resume.
    public var partialKeepSeconds: TimeInterval
    /// How long a passive data connection is waited for.
    public var dataConnectSeconds: TimeInterval
    public var tls: FTPTLSMode
    /// The addresses the setup text names for the camera (this machine's, when listening on all).
    public var setupAddresses: [String]

    public static let defaultPort: UInt16 = 2121

    public init(
        host: String = "0.0.0.0", port: UInt16 = FTPReceiverOptions.defaultPort, accounts: [FTPAccount], includeRAW: Bool = false,
        maxSessions: Int = 16, maxFileBytes: Int64 = 4_000_000_000, idleSeconds: TimeInterval = 300,
        partialKeepSeconds: TimeInterval = 3600, dataConnectSeconds: TimeInterval = 30, tls: FTPTLSMode = .off
    ) {
        self.tls = tls
        setupAddresses = host == "0.0.0.0" || host == "::" ? [] : [host]
        self.host = host
        self.port = port
        self.accounts = accounts
        self.includeRAW = includeRAW
        self.maxSessions = maxSessions
        self.maxFileBytes = maxFileBytes
        self.idleSeconds = idleSeconds
        self.partialKeepSeconds = partialKeepSeconds
        self.dataConnectSeconds = dataConnectSeconds
    }

    /// How long a control connection may stay silent before it is closed.
    func idleLimit(loggedIn: Bool) -> TimeInterval {
        loggedIn ? idleSeconds : min(loginIdleSeconds, idleSeconds)
    }

    /// Why one more control connection from `host` is refused, nil when it is admitted;
    /// Said once when cameras on the network may log in without TLS: their passwords (and
    /// photos) then cross the venue's Wi-Fi in the clear. Nil on loopback or with FTPS required.
    public var cleartextWarning: String? {
        guard !ListenAddress.isLoopback(host) else { return nil }
        switch tls {
        case .required:
            return nil
        case .optional:
            return "ftp: a camera that does not ask for TLS sends its password in the clear on the network; "
                + "--ftp-tls required refuses such logins (turn FTPS on in the camera's FTP menu)"
        case .off:
            return "ftp: cameras' passwords and photos cross the network in the clear; --ftp-tls required "
                + "encrypts them (turn FTPS on in the camera's FTP menu; relay ftp-setup shows what to type)"
        }
    }

    /// `openHosts` are the addresses of the connections already open.
    func refusal(of host: String, openHosts: [String]) -> String? {
        if openHosts.count >= maxSessions { return "\(maxSessions) sessions are open already" }
        if openHosts.filter({ $0 == host }).count >= maxSessionsPerAddress {
            return "\(maxSessionsPerAddress) sessions from \(host) are open already"
        }
        return nil
    }

    /// Reads `--ftp`'s `[ADDRESS:]PORT` (an IPv6 address in brackets: `[::1]:2121`).
    public static func parseListenAddress(_ text: String) throws(FTPReceiverError) -> (host: String, port: UInt16) {
        guard let address = ListenAddress.parse(text) else { throw .badListenAddress(text) }
        return address
    }
}

/// Whether the receiver speaks explicit FTPS (RFC 4217: AUTH TLS, PBSZ 0, PROT P).
public enum FTPTLSMode: String, Sendable, CaseIterable {
    /// Plain FTP only (AUTH TLS is answered 502, and clients carry on in the clear).
    case off
    /// FTPS for cameras that ask, plain FTP for the rest.
    case optional
    /// FTPS only: logins and transfers in the clear are refused.
    case required
}
