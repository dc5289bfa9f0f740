import Foundation

/// `scripts/cut_answer_proxy.py` in front of a server on loopback: it loses the server's first
/// `cut` answers with `status` (with `anyAnswer`, every answer on a kept-alive connection is
/// looked at, not only its first), closing the client's connection instead, as a venue's Wi-Fi
/// loses the packet that said "got it".
/// `every` loses only each Nth such answer, so that a client retrying its first step reaches the
/// later ones. `rewriteHost` gives the server its own address as the Host (WordPress redirects
/// any other). `bytesPerSecond` passes answers on at about that rate (a slow link: a download long
/// enough to kill a desk in the middle of; with `cut: 0` the proxy only slows).
public final class CutAnswerProxy {
    public let process: Subprocess
    /// Where clients connect.
    public let port: Int

    public init(
        target: Int, status: Int = 201, cut: Int = 1, every: Int = 1, anyAnswer: Bool = true, rewriteHost: Bool = false,
        bytesPerSecond: Int? = nil
    ) throws {
        guard let python = Subprocess.which("python3") else { throw WordPressError.missing("python3") }
        process = try Subprocess(
            python,
            [
                TestPaths.repositoryRoot.appendingPathComponent("scripts/cut_answer_proxy.py").path, "--target",
                "127.0.0.1:\(target)", "--status", "\(status)", "--cut", "\(cut)", "--every", "\(every)",
            ] + (anyAnswer ? ["--any-answer"] : []) + (rewriteHost ? ["--rewrite-host"] : [])
                + (bytesPerSecond.map { ["--rate", "\($0)"] } ?? []))
        guard let port = process.line(after: "proxy listening on 127.0.0.1:", timeout: 30).flatMap({ Int($0) }) else {
            _ = process.stop(signal: SIGKILL)
            throw WordPressError.didNotStart("the proxy: \(process.stdout) \(process.stderr)")
        }
        self.port = port
    }

    deinit { stop() }

    /// Answers lost so far.
    public var cuts: Int { process.stdout.components(separatedBy: "cut answer ").count - 1 }

    public var output: String { process.stdout + process.stderr }

    public func stop() {
        if process.isRunning { _ = process.stop(signal: SIGKILL) }
    }
}
