import Foundation

/// A `relay camera-sim` child process on a free port, for tests that need a camera: started with
/// `--port 0`, ready once it printed its "listening" line (which names the port), stopped with
/// SIGTERM.
public final class CameraSimProcess: Sendable {
    public let child: Subprocess
    public let host: String
    public let port: UInt16
    /// The UDP port the simulator answers SSDP searches on, when started with `--ssdp`.
    public let ssdpPort: UInt16?
    /// Lines written here reach the simulator's stdin ("shoot", "shoot N").
    private let stdinPipe: Pipe

    /// Starts `relay camera-sim --profile PROFILE --host HOST --port PORT EXTRA…` (by default on a
    /// free port of 127.0.0.1) and waits up to `timeout` for it to listen.
    public init(
        profile: String, arguments: [String] = [], host: String = "127.0.0.1", port requestedPort: UInt16 = 0,
        timeout: TimeInterval = 60
    ) throws {
        self.host = host
        stdinPipe = Pipe()
        child = try Subprocess(
            TestPaths.relayExecutable,
            ["camera-sim", "--profile", profile, "--host", host, "--port", String(requestedPort)] + arguments,
            stdin: stdinPipe.fileHandleForReading)
        var found: UInt16?
        let child = self.child
        _ = Subprocess.waitUntil(timeout: timeout) {
            found = Self.port(in: child.stdout)
            return found != nil || !child.isRunning
        }
        guard let found else {
            child.stop(timeout: 5)
            throw CameraSimProcessError.didNotStart(stdout: child.stdout, stderr: child.stderr)
        }
        port = found
        ssdpPort = Self.ssdpPort(in: child.stdout)
    }

    /// `HOST:PORT` for `relay discover --ssdp-target`, when started with `--ssdp`.
    public var ssdpTarget: String? { ssdpPort.map { "\(host):\($0)" } }

    deinit { stop() }

    /// The port as gphoto2 wants it: both channels named, or the event one goes to 15740.
    public var gphotoPort: String { "ptpip:\(host):\(port):\(port)" }

    /// The address as `relay run --camera` takes it.
    public var cameraURL: String { "ptpip://\(host):\(port)" }

    /// Takes one shot now (SIGUSR1).
    public func shootBySignal() {
        if child.isRunning { kill(child.pid, SIGUSR1) }
    }

    /// Takes `count` shots now through the stdin control line.
    public func shootByStdin(_ count: Int = 1) {
        stdinPipe.fileHandleForWriting.write(Data("shoot \(count)\n".utf8))
    }

    /// Puts the camera to sleep for `seconds`: it drops its client and refuses connections, then
    /// wakes with the same card.
    public func sleep(seconds: Double) {
        stdinPipe.fileHandleForWriting.write(Data("sleep \(seconds)\n".utf8))
    }

    /// The camera goes to sleep for `seconds` when the next operation `code` arrives, before
    /// carrying it out (the client is dropped waiting for its answer).
    public func sleep(seconds: Double, before code: UInt16) {
        stdinPipe.fileHandleForWriting.write(Data("sleep \(seconds) before 0x\(String(code, radix: 16))\n".utf8))
    }

    /// The photographer activates the body again (`--sessions-per-activation`).
    public func activate() {
        stdinPipe.fileHandleForWriting.write(Data("activate\n".utf8))
    }

    /// A line on the control input (`protect 2`, `rate 3 4`: the photographer selecting a shot).
    public func control(_ line: String) {
        stdinPipe.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// What the simulator logged so far.
    public var log: String { child.stderr }

    /// Stops the simulator (SIGTERM, then SIGKILL after 10 s); returns its exit status.
    @discardableResult
    public func stop() -> Int32 {
        child.stop(signal: SIGTERM, timeout: 10)
    }

    /// From "camera-sim ssdp on HOST:PORT", printed before the listening line.
    static func ssdpPort(in output: String) -> UInt16? {
        for line in output.split(separator: "\n") where line.hasPrefix("camera-sim ssdp on ") {
            if let colon = line.lastIndex(of: ":") { return UInt16(line[line.index(after: colon)...]) }
        }
        return nil
    }

    static func port(in output: String) -> UInt16? {
        for line in output.split(separator: "\n") where line.hasPrefix("camera-sim listening on ") {
            guard let open = line.range(of: " (profile") else { continue }
            let address = line[line.index(line.startIndex, offsetBy: 24)..<open.lowerBound]
            if let colon = address.lastIndex(of: ":"), let port = UInt16(address[address.index(after: colon)...]) {
                return port
            }
        }
        return nil
    }
}

public enum CameraSimProcessError: Error, CustomStringConvertible {
    case didNotStart(stdout: String, stderr: String)

    public var description: String {
        switch self {
        case .didNotStart(let stdout, let stderr):
            return "relay camera-sim did not report a listening port.\nstdout: \(stdout)\nstderr: \(stderr)"
        }
    }
}
