import CCurl
import Foundation
import RelayCore

/// An FTP, FTPS (explicit TLS) or SFTP server: the newsroom's or the agency's picture desk.
/// Each photo is written under a temporary name in its folder (created as needed) and renamed
/// into place once complete; see `FileTransferLocation` for the paths and the rename rule.
public final class FileTransferDestination: Destination {
    private let config: RequestConfig
    private let location: FileTransferLocation
    private let password: String?
    private let knownHosts: String?
    private let sshKey: String?
    private let policy: DeliveryPolicy
    private let client: FileTransferClient

    public init(
        config: RequestConfig, environment: [String: String], policy: DeliveryPolicy, cancellation: UploadCancellation
    ) throws(DestinationError) {
        self.config = config
        self.policy = policy
        do {
            location = try FileTransferLocation(config: config)
            password = try config.option(Self.password).map { value throws(ConfigError) in
                try EnvironmentExpansion.expand(value, header: "password", environment: environment)
            }
        } catch {
            throw .config(error)
        }
        knownHosts =
            location.scheme == .sftp ? Destinations.expandingHome(config.option(Self.knownHosts) ?? "~/.ssh/known_hosts", environment) : nil
        sshKey = config.option(Self.sshKey).map { Destinations.expandingHome($0, environment) }
        do { client = try FileTransferClient(cancellation: cancellation) } catch { throw .transport(error) }
    }

    /// The whole file is needed before its rename; an upload during the download would gain little.
    public var acceptsGrowingFiles: Bool { false }

    public func deliver(_ item: DeliveryItem, growing: (any GrowingFile)?, attempt: Int, progress: UploadProgress?) -> DeliveryReport {
        upload(item.filePath, to: location.target(for: item.template), attempt: attempt, prefix: item.prefix, progress: progress)
    }

    /// The size of the final name: there whole when it is the size of what would be sent. The
    /// upload goes to a temporary name and is renamed only once complete, so the final name
    /// with the right size means the earlier attempt's rename happened.
    public func probe(_ item: DeliveryItem, attempt: Int) -> EarlierAttempt {
        guard let size = EarlierAttempt.sendingSize(item) else { return .unknowable }
        let target = location.target(for: item.template)
        switch client.size(request(location.url(target.finalPath), filePath: "")) {
        case .success(let found):
            return .bySize(found: found, sending: size, how: location.scheme == .sftp ? "SFTP stat" : "FTP SIZE")
        case .failure(let error):
            let decision = FileTransferAnswer.decide(
                .failure(error), attempt: attempt, location: location, knownHosts: knownHosts, policy: policy)
            // A refusal (a folder not there yet, a login the send will name) cannot tell: the send says.
            guard case .retry = decision else { return .unknowable }
            return .unanswered(EarlierAttempt.question(report(error, decision: decision)))
        }
    }

    public func location(of item: DeliveryItem) -> String {
        location.displayName(location.target(for: item.template))
    }

    /// `PREFIX/SESSION/manifest.json` then `PREFIX/SESSION/_DONE`, PREFIX being the path
    /// template's fixed folder; each renamed into place like a photo, so neither shows half-written.
    public func deliverSet(manifest: String, marker: String, session: String) -> DeliveryReport? {
        let folder = location.pathTemplate.sessionFolder(session)
        return .manifestThenDone(manifest: manifest, marker: marker) { file, name in
            upload(file, to: FileTransferLocation.Target(folder: folder, name: name), attempt: 0)
        }
    }

    /// One upload of the file at `filePath` to `target`, under a temporary name then renamed.
    private func upload(
        _ filePath: String, to target: FileTransferLocation.Target, attempt: Int,
        prefix: BodyPrefix? = nil, progress: UploadProgress? = nil
    ) -> DeliveryReport {
        var upload = request(location.uploadURL(target), filePath: filePath)
        upload.afterUpload = location.renameCommands(target)
        upload.maxBytesPerSecond = config.maxBytesPerSecond.flatMap { $0 > 0 ? $0 : nil }
        upload.prefix = prefix
        let outcome = client.upload(upload, progress: progress)
        let decision = FileTransferAnswer.decide(outcome, attempt: attempt, location: location, knownHosts: knownHosts, policy: policy)
        switch outcome {
        case .success(let response):
            return DeliveryReport(
                decision: decision, evidence: .reachable, answer: "stored as \(location.displayName(target))",
                bytesSent: response.bytesSent)
        case .failure(let error):
            return report(error, decision: decision)
        }
    }

    /// A request to `url` with this destination's login.
    private func request(_ url: String, filePath: String) -> FileTransferRequest {
        FileTransferRequest(
            url: url, requireTLS: location.scheme == .ftps, username: location.user ?? (location.scheme == .sftp ? nil : "anonymous"),
            password: password, caCertificate: config.option(Self.caCertificate), sshKey: sshKey, knownHosts: knownHosts,
            filePath: filePath, timeoutSeconds: config.timeoutSeconds)
    }

    private func report(_ error: FileTransferError, decision: DeliveryDecision) -> DeliveryReport {
        let problem: String? =
            switch decision {
            case .permanent(let reason): reason
            default: error.transport.description + (error.replyCode > 0 ? " (server reply \(error.replyCode))" : "")
            }
        return DeliveryReport(
            decision: decision, evidence: GalleryReachability.evidence(of: .failure(error.transport)),
            problem: problem, transportError: error.transport)
    }

    public func summary(of item: DeliveryItem) -> String {
        "STOR \(location.displayName(location.target(for: item.template))) (via .part, then rename)"
    }
}

/// The FTP and SFTP rules (pure): a refused login, a denied folder, an unknown host key or any
/// other 5xx the FTP server answered are for the photographer to fix and are permanent, named as
/// such; everything else (a dropped connection, a 4xx such as a full disk there) is retried with
/// backoff.
public enum FileTransferAnswer {
    public static func decide(
        _ outcome: Result<FileTransferResponse, FileTransferError>, attempt: Int, location: FileTransferLocation,
        knownHosts: String?, policy: DeliveryPolicy
    ) -> DeliveryDecision {
        guard case .failure(let error) = outcome else { return .delivered }
        let server = "\(location.host):\(location.port)"
        if let hostKey = error.hostKey {
            let file = knownHosts ?? "known_hosts"
            if hostKey.mismatch {
                return .permanent(
                    reason: "the SFTP server \(server) showed host key \(hostKey.fingerprint), which is NOT the key "
                        + "\(file) has for it: another machine may be answering in its place. Check with the server's owner before "
                        + "changing \(file), then relay retry")
            }
            return .permanent(
                reason: "the SFTP server \(server) is not in \(file) (its host key is \(hostKey.fingerprint)): "
                    + "check that fingerprint with the server's owner, add the key (ssh-keyscan -p \(location.port) \(location.host) "
                    + ">> \(file)), then relay retry")
        }
        switch UInt32(error.transport.curlCode) {
        case CURLE_LOGIN_DENIED.rawValue:
            return .permanent(
                reason: "\(server) refused the login as '\(location.user ?? "anonymous")': check the user in the URL, "
                    + "the password (or SSH key) the config names, then relay retry")
        case CURLE_REMOTE_ACCESS_DENIED.rawValue:
            return .permanent(
                reason: "\(server) denied access to the folder (\(error.transport.message)): check the path and the "
                    + "account's rights there, then relay retry")
        case CURLE_REMOTE_FILE_NOT_FOUND.rawValue, CURLE_URL_MALFORMAT.rawValue:
            return .permanent(
                reason: "\(server) has no such folder and it could not be made (\(error.transport.message)): check "
                    + "the path in the URL, then relay retry")
        default:
            // A 5xx the server said (not a connection that dropped, where curl reads no reply)
            // is a refusal of this file: sending it again gets the same answer.
            if location.scheme != .sftp, let refusal = error.refusal, refusal.isPermanent {
                return .permanent(
                    reason: "\(server) refused the photo: \"\(refusal)\". Fix what it names (the folder, the account's rights, "
                        + "the file name it takes), then relay retry")
            }
            return policy.decide(.failure(error.transport), attempt: attempt)
        }
    }
}

extension FileTransferDestination: DestinationKind {
    public static let schemes = ["ftp", "ftps", "sftp"]

    public static let password = ConfigField(
        "password", .secretReference, option: "--password", placeholder: "'${FTP_PASSWORD}'",
        help: "the password (with --ssh-key, the key's passphrase) as a ${VAR} read from the environment")
    public static let caCertificate = ConfigField(
        "caCertificate", .path, option: "--ca-certificate", placeholder: "PEM",
        help: "a PEM file of the certificate (or its authority) to trust for the server", only: ["ftps"])
    public static let sshKey = ConfigField(
        "sshKey", .path, option: "--ssh-key", placeholder: "FILE", help: "the private key to log in with", only: ["sftp"])
    public static let knownHosts = ConfigField(
        "knownHosts", .path, option: "--known-hosts", placeholder: "FILE",
        help: "the known_hosts file that vouches for the server (~/.ssh/known_hosts when not given)", only: ["sftp"])

    public static let fields = [password, caCertificate, sshKey, knownHosts]

    /// No password in the URL; SFTP names its user.
    public static func validate(_ config: RequestConfig, url: URLComponents) throws(ConfigError) {
        if url.password != nil {
            throw .invalidURL(
                config.url, reason: "a password in the URL would be stored in the file; give \"password\": \"${FTP_PASSWORD}\" instead")
        }
        if config.scheme == "sftp" && (url.user ?? "").isEmpty {
            throw .invalidURL(config.url, reason: "an SFTP URL names the user: sftp://USER@HOST/PATH")
        }
    }

    public static func make(
        _ config: RequestConfig, environment: [String: String], policy: DeliveryPolicy, cancellation: UploadCancellation
    ) throws(DestinationError) -> any Destination {
        try FileTransferDestination(config: config, environment: environment, policy: policy, cancellation: cancellation)
    }
}
