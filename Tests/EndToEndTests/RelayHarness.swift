import Foundation
import TestSupport
import XCTest

/// One relay "installation" for a test: its own state folder and hot folder, and the real
/// `relay` executable run as a child process against them.
final class RelayHarness {
    let root: URL
    let home: URL
    let dropFolder: URL
    var environment: [String: String]

    init() throws {
        root = try TestPaths.makeTemporaryDirectory("relay-e2e")
        home = root.appendingPathComponent("home")
        dropFolder = root.appendingPathComponent("drop")
        try FileManager.default.createDirectory(at: dropFolder, withIntermediateDirectories: true)
        environment = ["RELAY_HOME": home.path]
    }

    /// A harness whose selected config sends to `gallery` (`relay config add --url … --note
    /// NOTE EXTRA…`), the start of most end-to-end tests. An empty `note` is a config without
    /// one, as relay stores `--note ""`: no `note` form field, and labelled by its URL.
    convenience init(sendingTo gallery: GalleryProcess, note: String = "e2e", _ extra: [String] = []) throws {
        try self.init()
        let added = try Subprocess.run(
            TestPaths.relayExecutable, ["config", "add", "--url", gallery.uploadURL, "--note", note] + extra, environment: environment,
            timeout: 60)
        guard added.status == 0 else { throw HarnessError.command("relay config add: \(added.stderr)") }
    }

    deinit {
        try? FileManager.default.removeItem(at: root)
    }

    /// Runs a relay command to completion.
    @discardableResult
    func relay(_ arguments: String..., file: StaticString = #filePath, line: UInt = #line) throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        try relay(arguments)
    }

    /// Runs a relay command, its arguments given as a list, to completion.
    @discardableResult
    func relay(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try Subprocess.run(TestPaths.relayExecutable, arguments, environment: environment, timeout: 60)
    }

    /// Starts `relay run` on the drop folder with fast settle and retry timings.
    func startRun(_ extra: [String] = []) throws -> Subprocess {
        try Subprocess(
            TestPaths.relayExecutable,
            [
                "run", "--folder", dropFolder.path, "--settle", "0.2", "--retry-base", "0.05", "--retry-cap", "0.5",
            ] + extra, environment: environment)
    }

    /// Starts `relay run --camera CAMERA EXTRA…` with fast retry timings.
    func startCameraRun(_ camera: String, _ extra: [String] = []) throws -> Subprocess {
        try Subprocess(
            TestPaths.relayExecutable,
            [
                "run", "--camera", camera, "--retry-base", "0.05", "--retry-cap", "0.5",
            ] + extra, environment: environment)
    }

    /// Starts `relay capture --camera CAMERA EXTRA…` with fast retry timings.
    func startCapture(_ camera: String, _ extra: [String]) throws -> Subprocess {
        try Subprocess(
            TestPaths.relayExecutable,
            [
                "capture", "--camera", camera, "--retry-base", "0.05", "--retry-cap", "0.5",
            ] + extra, environment: environment)
    }

    /// Drops JPEGs named IMG_0001.JPG... into the hot folder the way FTP servers do (temporary
    /// name, then rename); returns their bytes by name.
    @discardableResult
    func dropPhotos(_ count: Int, prefix: String = "IMG_", startingAt first: Int = 1, seed: UInt64 = 1) throws -> [String: Data] {
        var written: [String: Data] = [:]
        for number in first..<(first + count) {
            let name = String(format: "%@%04d.JPG", prefix, number)
            let temporary = dropFolder.appendingPathComponent(".\(name).part")
            let data = try JPEGFixture.write(to: temporary, count: 20_000 + (number * 7_919) % 180_000, seed: seed &+ UInt64(number))
            try FileManager.default.moveItem(at: temporary, to: dropFolder.appendingPathComponent(name))
            written[name] = data
        }
        return written
    }

    func history() throws -> [HistoryEntry] {
        let result = try relay("history", "--json")
        guard result.status == 0 else { throw HarnessError.command("relay history --json: \(result.stderr)") }
        return try JSONDecoder().decode([HistoryEntry].self, from: Data(result.stdout.utf8))
    }

    func status() throws -> StatusReport {
        let result = try relay("status", "--json")
        guard result.status == 0 else { throw HarnessError.command("relay status --json: \(result.stderr)") }
        return try JSONDecoder().decode(StatusReport.self, from: Data(result.stdout.utf8))
    }
}

enum HarnessError: Error {
    case command(String)
}

/// What the tests read of `relay history --json` (decoded independently of relay's own types).
struct HistoryEntry: Decodable {
    var captureNumber: Int
    var timestamp: String
    var success: Bool
    var statusCode: Int?
    var errorMessage: String?
    var requestSummary: String
    /// The destination's answer as the history shows it.
    var responseSummary: String?
    var fileName: String
    var bytes: Int
    var attempt: Int
    var isTimerCapture: Bool
    var renditionBytes: Int?
    var stampVersion: Int?
    var note: String?
    var destination: String?
    /// Who the desk credited the photo to.
    var photographer: String?
    var bracket: Bracket?
    /// The editor's caption written into the photo sent.
    var caption: Caption?

    struct Caption: Decodable, Equatable {
        var caption: String
        var title: String
    }

    /// A bracketing frame's place, as `relay history --json` gives it.
    struct Bracket: Decodable {
        var set: Int
        var frame: Int
        var exposure: String
    }

    var date: Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: timestamp)
    }
}

/// What the tests read of `relay status --json`.
struct StatusReport: Decodable {
    struct Entry: Decodable {
        var id: String
        var uploadName: String
        var lastStatusCode: Int?
        var lastError: String?
        var attempts: Int
    }

    struct Waiting: Decodable {
        var id: String
        var label: String
        var photos: [String]
    }

    var queued: [Entry]
    var inFlight: [Entry]
    var failed: [Entry]
    /// Per destination, the photos that still wait for it.
    var waiting: [Waiting]
}
