import Foundation
import TestSupport
import XCTest

/// Bad input on the command line and in state files: a clear message, a documented exit code,
/// and the user's files left exactly as they were.
final class CommandLineErrorTests: XCTestCase {
    func testCorruptConfigsFileIsNamedAndLeftByteForByte() throws {
        let harness = try RelayHarness()
        try FileManager.default.createDirectory(at: harness.home, withIntermediateDirectories: true)
        let file = harness.home.appendingPathComponent("configs.json")
        let garbage = Data("{ \"configs\": [ oops".utf8)
        try garbage.write(to: file)
        for command in [["config", "list"], ["config", "add", "--url", "https://x.example/u"], ["run", "--folder", harness.dropFolder.path]] {
            let result = try Subprocess.run(TestPaths.relayExecutable, command, environment: harness.environment)
            XCTAssertEqual(result.status, 4, "\(command): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(file.path), result.stderr)
            XCTAssertFalse(result.stderr.contains("Fatal error"), result.stderr)
        }
        XCTAssertEqual(try Data(contentsOf: file), garbage)
    }

    func testCorruptCamerasFileIsNamedAndLeftByteForByte() throws {
        let harness = try RelayHarness()
        XCTAssertEqual(try harness.relay("config", "add", "--url", "http://127.0.0.1:9/upload").status, 0)
        let file = harness.home.appendingPathComponent("cameras.json")
        let garbage = Data("{\"clientGUID\": \"00ff".utf8)
        try garbage.write(to: file)
        let result = try harness.relay("run", "--camera", "ptpip://127.0.0.1:9")
        XCTAssertEqual(result.status, 4, result.stderr)
        XCTAssertTrue(result.stderr.contains(file.path), result.stderr)
        XCTAssertEqual(try Data(contentsOf: file), garbage)
    }

    func testCorruptCaptureFileIsNamedAndLeftByteForByte() throws {
        let harness = try RelayHarness()
        XCTAssertEqual(try harness.relay("config", "add", "--url", "http://127.0.0.1:9/upload").status, 0)
        let file = harness.home.appendingPathComponent("capture.json")
        let garbage = Data("{\"interval\": 30, \"shots\": [".utf8)
        try garbage.write(to: file)
        for command in [["capture", "--resume"], ["capture", "--camera", "ptpip://127.0.0.1:9", "--every", "5s"]] {
            let result = try Subprocess.run(TestPaths.relayExecutable, command, environment: harness.environment)
            XCTAssertEqual(result.status, 4, "\(command): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(file.path), result.stderr)
        }
        XCTAssertEqual(try Data(contentsOf: file), garbage)
    }

    func testHelpAfterACommandPrintsTheUsage() throws {
        let harness = try RelayHarness()
        for command in ["run", "discover", "config", "history"] {
            let result = try harness.relay(command, "--help")
            XCTAssertEqual(result.status, 0, "\(command): \(result.stderr)")
            XCTAssertTrue(result.stdout.contains("RUN OPTIONS"), result.stdout)
        }
    }

    func testCorruptHistoryFileIsNamedAndLeftByteForByte() throws {
        let harness = try RelayHarness()
        XCTAssertEqual(try harness.relay("config", "add", "--url", "http://127.0.0.1:9/upload").status, 0)
        let file = harness.home.appendingPathComponent("history.json")
        let garbage = Data("{\"records\": [{\"id\": 1".utf8)
        try garbage.write(to: file)
        for command in [["history"], ["run", "--folder", harness.dropFolder.path]] {
            let result = try Subprocess.run(TestPaths.relayExecutable, command, environment: harness.environment)
            XCTAssertEqual(result.status, 4, "\(command): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(file.path), result.stderr)
        }
        XCTAssertEqual(try Data(contentsOf: file), garbage)
    }

    func testInvalidConfigInputIsRefusedNamingTheFieldAndTheFix() throws {
        let harness = try RelayHarness()
        let cases: [([String], String)] = [
            (["config", "add", "--url", "https://x.example/u", "--verb", "SEND"], "verb 'SEND'"),
            (["config", "add", "--url", "ftp://x.example/u"], "only http and https"),
            (["config", "add", "--note", "gallery"], "config 'gallery' has no URL: relay config add --url"),
            (["config", "add", "--url", "https://x.example/u", "--header", "NoColon"], "header 'NoColon'"),
            (["config", "add", "--url", "https://x.example/u", "--body", "xml"], "body 'xml'"),
        ]
        for (arguments, expected) in cases {
            let result = try Subprocess.run(TestPaths.relayExecutable, arguments, environment: harness.environment)
            XCTAssertEqual(result.status, 3, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(expected), "\(arguments): \(result.stderr)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: harness.home.appendingPathComponent("configs.json").path),
                       "nothing was saved")
    }

    func testRunRefusesWithoutConfigWithUnsetVariableAndWithMissingFolder() throws {
        let harness = try RelayHarness()
        var result = try harness.relay("run", "--folder", harness.dropFolder.path)
        XCTAssertEqual(result.status, 3)
        XCTAssertTrue(result.stderr.contains("no config is selected"), result.stderr)

        XCTAssertEqual(try harness.relay("config", "add", "--url", "http://127.0.0.1:9/u", "--header", "Authorization: Bearer ${RELAY_TEST_UNSET}").status, 0)
        result = try harness.relay("run", "--folder", harness.dropFolder.path)
        XCTAssertEqual(result.status, 3)
        XCTAssertTrue(result.stderr.contains("${RELAY_TEST_UNSET}"), result.stderr)

        result = try harness.relay("run", "--folder", harness.root.appendingPathComponent("missing").path)
        XCTAssertEqual(result.status, 5)
        XCTAssertTrue(result.stderr.contains("does not exist"), result.stderr)

        result = try harness.relay("run", "--folder", harness.dropFolder.path, "--workers", "zero")
        XCTAssertEqual(result.status, 2)
        result = try harness.relay("run", "--folder", harness.dropFolder.path, "--grace", "1e19")
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("--grace '1e19'"), result.stderr)

        var inside = harness.environment
        inside["RELAY_HOME"] = harness.dropFolder.appendingPathComponent("state").path
        result = try Subprocess.run(TestPaths.relayExecutable, ["run", "--folder", harness.dropFolder.path], environment: inside)
        XCTAssertEqual(result.status, 5)
        XCTAssertTrue(result.stderr.contains("is inside the hot folder"), result.stderr)
        result = try harness.relay("frobnicate")
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("unknown command"), result.stderr)
    }

    func testConfigCommandsRoundTrip() throws {
        let harness = try RelayHarness()
        XCTAssertEqual(try harness.relay("config", "import", TestPaths.repositoryRoot.appendingPathComponent("config.example.json").path).status, 0)
        var list = try harness.relay("config", "list")
        XCTAssertEqual(list.stdout.split(separator: "\n").count, 3, list.stdout)
        XCTAssertTrue(list.stdout.contains("* 6f1c2e0a"), list.stdout)
        XCTAssertEqual(try harness.relay("config", "use", "Local gallery (scripts/gallery.py)").status, 0)
        list = try harness.relay("config", "list")
        XCTAssertTrue(list.stdout.contains("* a3e9c1b2"), list.stdout)
        let shown = try harness.relay("config", "show")
        XCTAssertTrue(shown.stdout.contains("\"url\" : \"http://127.0.0.1:8080/upload\""), shown.stdout)
        XCTAssertEqual(try harness.relay("config", "remove", "a3e9c1b2").status, 0)
        list = try harness.relay("config", "list")
        XCTAssertEqual(list.stdout.split(separator: "\n").count, 2, list.stdout)
        XCTAssertTrue(list.stdout.contains("* "), "another config is selected after removing the selected one")
    }
}
