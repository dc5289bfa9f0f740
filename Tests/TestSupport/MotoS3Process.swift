import Foundation

public enum MotoS3Error: Error, CustomStringConvertible {
    case missing(String)
    case didNotStart(String)

    public var description: String {
        switch self {
        case .missing(let what): "\(what) is missing: scripts/install-deps.sh test installs it (pip moto[server])"
        case .didNotStart(let detail): "moto's S3 did not start: \(detail)"
        }
    }
}

/// `scripts/moto_s3.py`: moto's S3 in server mode on a loopback port, with its buckets made, for
/// AWS's own answers to conditional writes beside SeaweedFS's. It takes any keys (region
/// us-east-1) and wants path-style addressing.
public final class MotoS3Process {
    /// How the store answers a write with `If-None-Match` or `If-Match` (the script's
    /// `--conditional-writes`).
    public enum ConditionalWrites: String, Sendable {
        /// As AWS (and moto) answer: 412, 404 NoSuchKey for If-Match on a missing key.
        case aws
        /// 501 NotImplemented: a store without conditional writes that says so.
        case notImplemented = "501"
        /// The conditions dropped and the write done: one that does not say so.
        case ignored
    }

    public let process: Subprocess
    /// `http://127.0.0.1:PORT`, the S3 endpoint.
    public let endpoint: String
    public let accessKey = "RELAYTESTKEY"
    public let secretKey = "relay-test-secret"

    /// Starts the store with `buckets` made; waits up to `startTimeout` for its ready line
    /// (moto's import alone takes a second or two).
    public init(buckets: [String] = ["inbox"], conditionalWrites: ConditionalWrites = .aws, startTimeout: TimeInterval = 60) throws {
        guard let python = Subprocess.which("python3") else { throw MotoS3Error.missing("python3") }
        let script = TestPaths.repositoryRoot.appendingPathComponent("scripts/moto_s3.py").path
        process = try Subprocess(
            python,
            ["-u", script, "--host", "127.0.0.1", "--conditional-writes", conditionalWrites.rawValue]
                + buckets.flatMap { ["--bucket", $0] })
        let prefix = "moto s3 listening on "
        var address: String?
        _ = Subprocess.waitUntil(timeout: startTimeout) { [process] in
            let output = process.stdout
            if let range = output.range(of: prefix), let end = output[range.upperBound...].firstIndex(of: " ") {
                address = String(output[range.upperBound..<end])
                return true
            }
            return !process.isRunning
        }
        guard let address else {
            let running = process.isRunning
            process.stop(timeout: 5)
            if process.stderr.contains("No module named") { throw MotoS3Error.missing("moto[server]: \(process.stderr.suffix(300))") }
            throw MotoS3Error.didNotStart(
                (running ? "no ready line within \(Int(startTimeout)) s" : "exited with status \(process.process.terminationStatus)")
                    + "; stderr: \(process.stderr.suffix(2000))")
        }
        endpoint = address
    }

    deinit { stop() }

    public func stop() {
        if process.isRunning { process.stop(timeout: 10) }
    }
}
