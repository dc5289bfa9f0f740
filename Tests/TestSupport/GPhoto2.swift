import Foundation

/// Runs Debian's `gphoto2` the way the interop tests need it: a private HOME (it writes
/// settings under ~/.gphoto), a working folder for downloads, and a deadline on every call.
public enum GPhoto2 {
    /// The message a test fails with when gphoto2 is missing: the judge is required, not optional.
    public static let missingMessage = "gphoto2 not found: install the Debian package gphoto2"

    public static var executable: URL? { Subprocess.which("gphoto2") }

    /// Runs `gphoto2 --port PORT ARGS…` in `directory` with HOME set to `home`.
    public static func run(
        port: String, _ arguments: [String], in directory: URL, home: URL,
        timeout: TimeInterval = 60
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        guard let executable else { throw GPhoto2Error.notInstalled }
        let child = try Subprocess(
            executable, ["--port", port] + arguments,
            environment: ["HOME": home.path, "LANG": "C", "LC_ALL": "C"],
            currentDirectory: directory)
        let status = child.wait(timeout: timeout) ?? child.stop(signal: SIGKILL, timeout: 5)
        return (status, child.stdout, child.stderr)
    }
}

public enum GPhoto2Error: Error, CustomStringConvertible {
    case notInstalled

    public var description: String { GPhoto2.missingMessage }
}
