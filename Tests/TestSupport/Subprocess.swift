import Foundation

/// A child process for tests: started with arguments and environment, output captured to files
/// (so a chatty child never blocks on a full pipe), stopped or awaited with a deadline.
public final class Subprocess: @unchecked Sendable {
    public let process = Process()
    public let stdoutURL: URL
    public let stderrURL: URL

    /// Starts `executable` with `arguments`; `environment` entries are added to this process's own.
    public init(
        _ executable: URL,
        _ arguments: [String],
        environment: [String: String] = [:],
        currentDirectory: URL? = nil,
        stdin: FileHandle? = nil
    ) throws {
        let folder = try TestPaths.makeTemporaryDirectory("subprocess")
        stdoutURL = folder.appendingPathComponent("stdout")
        stderrURL = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        process.executableURL = executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        process.environment = env
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        outputs = [try FileHandle(forWritingTo: stdoutURL), try FileHandle(forWritingTo: stderrURL)]
        process.standardOutput = outputs[0]
        process.standardError = outputs[1]
        process.standardInput = stdin ?? FileHandle.nullDevice
        try process.run()
    }

    /// This process's handles on the child's output files, closed once the child has exited: a
    /// test run of some hundred children would otherwise hold a thousand descriptors (and
    /// libgphoto2's select() aborts on one past FD_SETSIZE in the tests that run it in-process).
    private var outputs: [FileHandle] = []
    private let outputsLock = NSLock()

    private func closeOutputs() {
        let handles = outputsLock.withLock {
            defer { outputs = [] }
            return outputs
        }
        for handle in handles { try? handle.close() }
    }

    /// Looks an executable up on PATH, as a shell would.
    public static func which(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(dir)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    public var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
    public var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }
    public var isRunning: Bool { process.isRunning }
    public var pid: Int32 { process.processIdentifier }

    /// Waits until the process exits or `timeout` passes; returns the exit status, or nil on timeout.
    @discardableResult
    public func wait(timeout: TimeInterval) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            if Date() > deadline { return nil }
            usleep(20_000)
        }
        closeOutputs()
        return process.terminationStatus
    }

    /// Sends `signal` and waits up to `timeout` for the exit; SIGKILL after that.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM, timeout: TimeInterval = 10) -> Int32 {
        if process.isRunning { kill(process.processIdentifier, signal) }
        if let status = wait(timeout: timeout) { return status }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        closeOutputs()
        return process.terminationStatus
    }

    /// The rest of the first line of stdout after `prefix`, once it is written whole; nil when the
    /// process ends first or `timeout` passes (how a peer says it is ready, and where).
    public func line(after prefix: String, timeout: TimeInterval) -> String? {
        var found: String?
        _ = Subprocess.waitUntil(timeout: timeout) {
            let output = stdout
            if let range = output.range(of: prefix), let end = output[range.upperBound...].firstIndex(of: "\n") {
                found = String(output[range.upperBound..<end])
                return true
            }
            return !isRunning
        }
        return found
    }

    /// Polls `condition` every 50 ms until it holds or `timeout` passes.
    public static func waitUntil(timeout: TimeInterval, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return true }
            usleep(50_000)
        }
        return try condition()
    }

    /// Runs to completion (or `timeout`, then killed) and returns status and output.
    public static func run(
        _ executable: URL, _ arguments: [String],
        environment: [String: String] = [:], timeout: TimeInterval = 60
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        let child = try Subprocess(executable, arguments, environment: environment)
        let status = child.wait(timeout: timeout) ?? child.stop(signal: SIGKILL, timeout: 5)
        return (status, child.stdout, child.stderr)
    }
}
