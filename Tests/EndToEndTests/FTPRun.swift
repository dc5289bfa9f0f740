import Foundation
import TestSupport
import XCTest

/// A real `relay run --ftp` on a free loopback port with the real gallery behind it, and the FTP
/// clients the tests drive it with (curl, Python ftplib, lftp, scripts/ftp_camera.py).
final class FTPRun {
    let harness: RelayHarness
    let gallery: GalleryProcess
    private(set) var relay: Subprocess
    private(set) var port: Int = 0
    let files: URL

    /// `users`: name and password; each password is handed over in its own environment variable.
    /// `config`: more options of the gallery's `relay config add` (e.g. `--max-edge`). `home`:
    /// RELAY_HOME somewhere else than the harness's (on a file system a test cuts the power of).
    init(
        users: [(String, String)] = [("alice", "alice-secret")], extra: [String] = [], config: [String] = [],
        gallery: GalleryProcess? = nil, home: URL? = nil
    ) throws {
        self.gallery = try gallery ?? GalleryProcess()
        harness = try RelayHarness()
        if let home { harness.environment["RELAY_HOME"] = home.path }
        files = harness.root.appendingPathComponent("camera")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        let added = try Subprocess.run(
            TestPaths.relayExecutable, ["config", "add", "--url", self.gallery.uploadURL] + config, environment: harness.environment)
        XCTAssertEqual(added.status, 0, added.stderr)
        var arguments = ["run", "--ftp", "127.0.0.1:0", "--retry-base", "0.05", "--retry-cap", "0.5"]
        for (name, password) in users {
            let variable = "FTP_PASSWORD_\(name.uppercased())"
            harness.environment[variable] = password
            arguments += ["--ftp-user", "\(name):\(variable)"]
        }
        self.arguments = arguments + extra
        relay = try Subprocess(TestPaths.relayExecutable, self.arguments, environment: harness.environment)
        try waitForPort()
    }

    private let arguments: [String]

    deinit { _ = relay.stop(signal: SIGKILL) }

    /// Starts relay again with the same state (after a kill); it listens on a new port.
    func restart() throws {
        relay = try Subprocess(TestPaths.relayExecutable, arguments, environment: harness.environment)
        try waitForPort()
    }

    private func waitForPort() throws {
        let pattern = try NSRegularExpression(pattern: "ftp: listening on 127\\.0\\.0\\.1:(\\d+)")
        var found: Int?
        _ = Subprocess.waitUntil(timeout: 30) {
            let text = relay.stderr
            if let match = pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).last,
                let range = Range(match.range(at: 1), in: text)
            {
                found = Int(text[range])
            }
            return found != nil || !relay.isRunning
        }
        port = try XCTUnwrap(found, "relay did not start its FTP receiver: \(relay.stderr)")
    }

    /// A JPEG-shaped file of `bytes` in the camera folder.
    @discardableResult
    func photo(_ name: String, bytes: Int, seed: UInt64) throws -> Data {
        try JPEGFixture.write(to: files.appendingPathComponent(name), count: bytes, seed: seed)
    }

    func path(_ name: String) -> String { files.appendingPathComponent(name).path }

    func waitForPhotos(_ count: Int, timeout: TimeInterval = 60) throws {
        let arrived = try Subprocess.waitUntil(timeout: timeout) { try gallery.photos().count >= count || !relay.isRunning }
        let have = try gallery.photos().count
        XCTAssertTrue(arrived, "only \(have) of \(count) photos arrived; relay stderr:\n\(relay.stderr.suffix(3000))")
    }

    /// Runs a client to its end.
    func client(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        let tool = try XCTUnwrap(Subprocess.which(executable), "\(executable) is not installed (scripts/install-deps.sh installs it)")
        return try Subprocess.run(tool, arguments, environment: environment, timeout: 60)
    }

    /// Sends each command on one logged-in control connection (Python ftplib) and returns the
    /// server's answers, one line each.
    func commands(_ commands: [String], user: String = "alice", password: String = "alice-secret") throws -> [String] {
        let script = """
            import ftplib, sys
            f = ftplib.FTP()
            f.connect("127.0.0.1", \(port), timeout=30)
            f.login(sys.argv[1], sys.argv[2])
            for command in sys.argv[3:]:
                try:
                    print(f.sendcmd(command))
                except ftplib.all_errors as error:
                    print(error)
            f.quit()
            """
        let result = try client("python3", ["-c", script, user, password] + commands)
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout.split(separator: "\n").map(String.init)
    }

    /// scripts/ftp_camera.py with `arguments` (password from the environment, as a camera's is stored).
    func camera(_ arguments: [String], user: String = "alice", password: String = "alice-secret") throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        let script = TestPaths.repositoryRoot.appendingPathComponent("scripts/ftp_camera.py").path
        return try client(
            "python3", [script, "--port", "\(port)", "--user", user, "--password-env", "CAMERA_FTP_PASSWORD"] + arguments,
            environment: ["CAMERA_FTP_PASSWORD": password])
    }
}
