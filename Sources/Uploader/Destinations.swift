import Foundation
import RelayCore

/// Makes the destination a request config names: HTTP(S), an S3-compatible bucket, an FTP, FTPS
/// or SFTP server, or a WebDAV server.
public enum Destinations {
    /// One destination for one upload worker (each owns its own connection).
    public static func make(
        _ config: RequestConfig, environment: [String: String], policy: DeliveryPolicy, cancellation: UploadCancellation
    ) throws(DestinationError) -> any Destination {
        switch config.kind {
        case .http:
            do {
                return try HTTPDestination(config: config, environment: environment, policy: policy, cancellation: cancellation)
            } catch {
                throw .transport(error)
            }
        case .s3:
            return try S3Destination(config: config, environment: environment, policy: policy, cancellation: cancellation)
        case .ftp, .ftps, .sftp:
            return try FileTransferDestination(config: config, environment: environment, policy: policy, cancellation: cancellation)
        case .webdav:
            return try WebDAVDestination(config: config, environment: environment, policy: policy, cancellation: cancellation)
        }
    }

    /// Checks what a run needs from the environment before the first photo moves: `${VAR}`
    /// references in headers, and an S3 destination's credentials.
    public static func checkEnvironment(_ config: RequestConfig, environment: [String: String]) throws(ConfigError) {
        for (name, value) in config.headers {
            _ = try EnvironmentExpansion.expand(value, header: name, environment: environment)
        }
        if config.kind == .s3 {
            _ = try S3Destination.signing(config: config, region: config.region ?? S3Location.defaultRegion, environment: environment)
        }
        if let password = config.password {
            _ = try EnvironmentExpansion.expand(password, header: "password", environment: environment)
        }
        // A key or certificate that cannot be read would fail every upload: say so before the first.
        for (name, path) in [("sshKey", config.sshKey), ("knownHosts", config.knownHosts), ("caCertificate", config.caCertificate)] {
            guard let path else { continue }
            let expanded = (path as NSString).expandingTildeInPath
            guard FileManager.default.isReadableFile(atPath: expanded) else {
                throw .invalidSetting(name, reason: "cannot read \(expanded): give the path of a file relay can read")
            }
        }
    }
}
