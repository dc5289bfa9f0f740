import Foundation
import TestSupport
import XCTest

/// A desk: a real `relay run --http … --ftp …` taking photos from field relays and phones, with
/// a real gallery behind it (`config`: more options of its `relay config add`, such as
/// `--send approved`). Two photographers have logins: anna and ben over HTTP, ben over FTP too.
/// Field relays are other real `relay run`s (``field(over:as:)``) sending to it.
final class DeskRun {
    /// The HTTP logins (name, token) and ben's FTP password, each handed over in its own
    /// environment variable as a user would.
    static let tokens = ["anna": "anna-desk-token-0001", "ben": "ben-desk-token-000002"]
    static let ftpPassword = "ben-ftp-secret"

    let gallery: GalleryProcess
    let harness: RelayHarness
    private(set) var relay: Subprocess
    private(set) var httpPort = 0
    private(set) var ftpPort = 0
    private var arguments: [String]

    /// `run`: more options of the desk's `relay run` (e.g. `--include-raw`); `environment`: more
    /// of its variables (the pages' tokens).
    init(config: [String] = [], run extra: [String] = [], gallery: GalleryProcess? = nil, environment: [String: String] = [:]) throws {
        self.gallery = try gallery ?? GalleryProcess()
        harness = try RelayHarness(sendingTo: self.gallery, note: "gallery", config)
        harness.environment["ANNA_TOKEN"] = Self.tokens["anna"]
        harness.environment["BEN_TOKEN"] = Self.tokens["ben"]
        harness.environment["BEN_FTP_PASSWORD"] = Self.ftpPassword
        harness.environment.merge(environment) { $1 }
        arguments =
            [
                "run", "--http", "127.0.0.1:0", "--http-user", "anna:ANNA_TOKEN", "--http-user", "ben:BEN_TOKEN",
                "--ftp", "127.0.0.1:0", "--ftp-user", "ben:BEN_FTP_PASSWORD", "--retry-base", "0.05", "--retry-cap", "0.5",
            ] + extra
        relay = try Subprocess(TestPaths.relayExecutable, arguments, environment: harness.environment)
        try waitForPorts()
        // A restart listens where the field relays send.
        arguments[2] = "127.0.0.1:\(httpPort)"
        arguments[8] = "127.0.0.1:\(ftpPort)"
    }

    deinit { _ = relay.stop(signal: SIGKILL) }

    var uploadURL: String { "http://127.0.0.1:\(httpPort)/upload" }

    /// Kills the desk as a power cut would its process (SIGKILL), then starts it again on the
    /// same ports with the same state.
    func killAndRestart() throws {
        _ = relay.stop(signal: SIGKILL)
        relay = try Subprocess(TestPaths.relayExecutable, arguments, environment: harness.environment)
        try waitForPorts()
    }

    private func waitForPorts() throws {
        let http = try NSRegularExpression(pattern: "http: listening on 127\\.0\\.0\\.1:(\\d+)")
        let ftp = try NSRegularExpression(pattern: "ftp: listening on 127\\.0\\.0\\.1:(\\d+)")
        func port(_ pattern: NSRegularExpression, in text: String) -> Int? {
            guard let match = pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).last,
                let range = Range(match.range(at: 1), in: text)
            else { return nil }
            return Int(text[range])
        }
        var found: (Int?, Int?) = (nil, nil)
        let relay = self.relay
        _ = Subprocess.waitUntil(timeout: 30) {
            found = (port(http, in: relay.stderr), port(ftp, in: relay.stderr))
            return (found.0 != nil && found.1 != nil) || !relay.isRunning
        }
        httpPort = try XCTUnwrap(found.0, "the desk did not start its HTTP inbox: \(relay.stderr)")
        ftpPort = try XCTUnwrap(found.1, "the desk did not start its FTP receiver: \(relay.stderr)")
    }

    /// How a field relay reaches the desk.
    enum Road {
        /// Its HTTP destination, with the login's token in the environment.
        case http
        /// Its FTP destination (ben's FTP login).
        case ftp
    }

    /// A field relay's harness whose selected config sends to this desk (`relay config add` as
    /// the README says), over `road` as `login`; `url` replaces the desk's address (a proxy's).
    func field(over road: Road, as login: String, url: String? = nil, path: String = "", config extra: [String] = []) throws -> RelayHarness
    {
        let field = try RelayHarness()
        field.environment["DESK_TOKEN"] = Self.tokens[login]
        field.environment["DESK_FTP_PASSWORD"] = Self.ftpPassword
        let config: [String] =
            switch road {
            case .http: ["--url", url ?? uploadURL, "--header", "Authorization: Bearer ${DESK_TOKEN}"]
            case .ftp: ["--url", "ftp://\(login)@127.0.0.1:\(ftpPort)/\(path)", "--password", "${DESK_FTP_PASSWORD}"]
            }
        let added = try field.relay(["config", "add"] + config + extra)
        XCTAssertEqual(added.status, 0, added.stderr)
        return field
    }

    /// A photo held at the desk, as `relay review list --json` gives it.
    struct Held: Decodable {
        var id: String
        var name: String
        var photographer: String?
        var camera: String?
        var note: String?
    }

    func held() throws -> [Held] {
        let result = try harness.relay("review", "list", "--json")
        guard result.status == 0 else { throw HarnessError.command("relay review list --json: \(result.stderr)") }
        return try JSONDecoder().decode([Held].self, from: Data(result.stdout.utf8))
    }

    /// Waits until the gallery holds `count` photos, failing with the desk's log if it does not.
    func waitForGallery(_ count: Int, timeout: TimeInterval = 90, file: StaticString = #filePath, line: UInt = #line) throws {
        let gallery = self.gallery
        let arrived = try Subprocess.waitUntil(timeout: timeout) { try gallery.photos().count >= count }
        let have = try gallery.photos().count
        XCTAssertTrue(
            arrived, "\(have) of \(count) photos reached the gallery; desk:\n\(relay.stderr.suffix(4000))",
            file: file, line: line)
    }

    /// The desk's spool holds nothing more to send (every photo delivered or decided).
    func assertNothingLeft(file: StaticString = #filePath, line: UInt = #line) throws {
        try harness.assertSpoolEmpty(file: file, line: line)
    }

    /// An HTTP request to the inbox with curl: its status code and body.
    func curl(_ arguments: [String]) throws -> (status: Int, body: String) {
        let curl = try XCTUnwrap(Subprocess.which("curl"))
        let result = try Subprocess.run(curl, ["-sS", "-o", "-", "-w", "\n%{http_code}"] + arguments, timeout: 60)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }
}

extension RelayHarness {
    /// Waits until this relay's spool holds nothing more to send (every photo delivered, refused
    /// or decided), failing after `timeout`: what was sent is then final.
    func assertSpoolEmpty(timeout: TimeInterval = 60, file: StaticString = #filePath, line: UInt = #line) throws {
        let empty = try Subprocess.waitUntil(timeout: timeout) {
            let status = try self.status()
            return status.queued.isEmpty && status.inFlight.isEmpty
        }
        XCTAssertTrue(empty, "the spool of \(home.path) still holds photos to send", file: file, line: line)
    }
}
