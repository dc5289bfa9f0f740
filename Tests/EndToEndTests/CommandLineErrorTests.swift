import Foundation
import TestSupport
import XCTest

/// Bad input on the command line and in state files: a clear message, a documented exit code,
/// and the user's files left exactly as they were.
final class CommandLineErrorTests: XCTestCase {
    /// Writes `garbage` as the state file `name`, runs each command: exit 4, the file named, no
    /// crash, and the file byte for byte as it was. `withConfig`: a usable config exists first.
    private func assertCorrupt(
        _ name: String, _ garbage: String, withConfig: Bool = true, commands: (RelayHarness) -> [[String]],
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let harness = try RelayHarness()
        try FileManager.default.createDirectory(at: harness.home, withIntermediateDirectories: true)
        if withConfig {
            XCTAssertEqual(try harness.relay("config", "add", "--url", "http://127.0.0.1:9/upload").status, 0, file: file, line: line)
        }
        let stateFile = harness.home.appendingPathComponent(name)
        try Data(garbage.utf8).write(to: stateFile)
        for command in commands(harness) {
            let result = try Subprocess.run(TestPaths.relayExecutable, command, environment: harness.environment)
            XCTAssertEqual(result.status, 4, "\(command): \(result.stderr)", file: file, line: line)
            XCTAssertTrue(result.stderr.contains(stateFile.path), result.stderr, file: file, line: line)
            XCTAssertFalse(result.stderr.contains("Fatal error"), result.stderr, file: file, line: line)
        }
        XCTAssertEqual(try Data(contentsOf: stateFile), Data(garbage.utf8), file: file, line: line)
    }

    func testCorruptConfigsFileIsNamedAndLeftByteForByte() throws {
        try assertCorrupt("configs.json", "{ \"configs\": [ oops", withConfig: false) { harness in
            [["config", "list"], ["config", "add", "--url", "https://x.example/u"], ["run", "--folder", harness.dropFolder.path]]
        }
    }

    /// The history is only a log: a torn one (a power cut, a full disk, a hand edit) is moved
    /// aside byte for byte, said once, and relay runs with a new one; so does `relay history`.
    func testATornHistoryIsMovedAsideAndRelayRunsAnyway() throws {
        let gallery = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "")
        let garbage = Data("{\"records\": [{\"id\": 1".utf8)
        let history = harness.home.appendingPathComponent("history.json")
        for command in [["history"], ["run"]] {
            try garbage.write(to: history)
            let said: String
            if command == ["history"] {
                let result = try harness.relay("history")
                XCTAssertEqual(result.status, 0, result.stderr)
                XCTAssertTrue(result.stdout.contains("no uploads yet"), result.stdout)
                said = result.stderr
            } else {
                let relay = try harness.startRun()
                let sent = try harness.dropPhotos(1)
                XCTAssertTrue(try Subprocess.waitUntil(timeout: 60) { try gallery.photos().count == 1 || !relay.isRunning }, relay.stderr)
                XCTAssertEqual(relay.stop(signal: SIGINT, timeout: 30), 0, relay.stderr)
                XCTAssertEqual(try harness.history().map(\.fileName), Array(sent.keys), "the new history has the run's upload")
                said = relay.stderr
            }
            let asides = try FileManager.default.contentsOfDirectory(atPath: harness.home.path).filter {
                $0.hasPrefix("history.json.unreadable-")
            }
            XCTAssertEqual(asides.count, 1, "\(asides)")
            let aside = try XCTUnwrap(asides.first)
            XCTAssertTrue(said.contains("history.json could not be read; it was moved aside to \(aside)"), said)
            XCTAssertEqual(try Data(contentsOf: harness.home.appendingPathComponent(aside)), garbage, "kept byte for byte")
            try FileManager.default.removeItem(at: harness.home.appendingPathComponent(aside))
        }
    }

    func testCorruptCamerasFileIsNamedAndLeftByteForByte() throws {
        try assertCorrupt("cameras.json", "{\"clientGUID\": \"00ff") { _ in [["run", "--camera", "ptpip://127.0.0.1:9"]] }
    }

    func testCorruptCaptureFileIsNamedAndLeftByteForByte() throws {
        try assertCorrupt("capture.json", "{\"interval\": 30, \"shots\": [") { _ in
            [["capture", "--resume"], ["capture", "--camera", "ptpip://127.0.0.1:9", "--every", "5s"]]
        }
    }

    func testBrokenConfigFilesAreRefusedOnImportNamingTheProblem() throws {
        let harness = try RelayHarness()
        XCTAssertEqual(try harness.relay("config", "add", "--url", "https://kept.example/u").status, 0)
        let configs = harness.home.appendingPathComponent("configs.json")
        let before = try Data(contentsOf: configs)
        let cases: [(String, String)] = [
            (#"[{"url": "https://a.example/u", "colour": "red"}]"#, "unknown field 'colour'"),
            (#"[{"verb": "POST", "note": "gala"}]"#, "config 'gala' has no URL"),
            (#"[{"url": "https://a.example/u", "verb": "SEND"}]"#, "verb 'SEND' is not one of GET, POST, PUT, PATCH, DELETE"),
            (
                #"[{"url": "gopher://a.example/u"}]"#,
                "only http, https, s3, ftp, ftps, sftp, dav, davs, wp, wps, immich and immichs URLs are supported"
            ),
            (#"[{"url": "https://a.example/u", "timeoutSeconds": -3}]"#, "it must be a positive number of seconds"),
            (#"{"configs": [ {"url": "#, "cannot import"),
        ]
        let file = harness.root.appendingPathComponent("import.json")
        for (body, message) in cases {
            try Data(body.utf8).write(to: file)
            let result = try harness.relay("config", "import", file.path)
            XCTAssertEqual(result.status, 3, "\(body): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(message), "\(body): \(result.stderr)")
            XCTAssertEqual(try Data(contentsOf: file), Data(body.utf8), "the imported file is only read")
        }
        XCTAssertEqual(try Data(contentsOf: configs), before, "nothing imported, nothing changed")
    }

    func testHelpAfterACommandPrintsTheUsage() throws {
        let harness = try RelayHarness()
        let sections = [
            "run": "RUN OPTIONS", "capture": "CAPTURE OPTIONS", "discover": "DISCOVER OPTIONS",
            "config": "CONFIG ADD OPTIONS", "history": "HISTORY OPTIONS", "ftp-setup": "FTP-SETUP OPTIONS",
        ]
        for (command, section) in sections {
            let result = try harness.relay(command, "--help")
            XCTAssertEqual(result.status, 0, "\(command): \(result.stderr)")
            XCTAssertTrue(result.stdout.hasPrefix("usage: relay \(command) "), result.stdout)
            XCTAssertTrue(result.stdout.contains(section), result.stdout)
            XCTAssertFalse(result.stdout.contains("EXIT CODES"), "\(command) --help is that command's help: \(result.stdout)")
        }
        let overview = try harness.relay("--help")
        XCTAssertTrue(overview.stdout.contains("EXIT CODES") && overview.stdout.contains("RUN OPTIONS"), overview.stdout)
    }

    func testInvalidConfigInputIsRefusedNamingTheFieldAndTheFix() throws {
        let harness = try RelayHarness()
        let cases: [([String], String)] = [
            (["config", "add", "--url", "https://x.example/u", "--verb", "SEND"], "verb 'SEND'"),
            (
                ["config", "add", "--url", "gopher://x.example/u"],
                "only http, https, s3, ftp, ftps, sftp, dav, davs, wp, wps, immich and immichs URLs"
            ),
            (["config", "add", "--note", "gallery"], "config 'gallery' has no URL: relay config add --url"),
            (["config", "add", "--url", "https://x.example/u", "--header", "NoColon"], "header 'NoColon'"),
            (["config", "add", "--url", "https://x.example/u", "--body", "xml"], "body is multipart or raw"),
        ]
        for (arguments, expected) in cases {
            let result = try Subprocess.run(TestPaths.relayExecutable, arguments, environment: harness.environment)
            XCTAssertEqual(result.status, 3, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(expected), "\(arguments): \(result.stderr)")
        }
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: harness.home.appendingPathComponent("configs.json").path),
            "nothing was saved")
    }

    func testRunRefusesWithoutConfigWithUnsetVariableAndWithMissingFolder() throws {
        let harness = try RelayHarness()
        var result = try harness.relay("run", "--folder", harness.dropFolder.path)
        XCTAssertEqual(result.status, 3)
        XCTAssertTrue(result.stderr.contains("no config is selected"), result.stderr)

        XCTAssertEqual(
            try harness.relay("config", "add", "--url", "http://127.0.0.1:9/u", "--header", "Authorization: Bearer ${RELAY_TEST_UNSET}")
                .status, 0)
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
        XCTAssertEqual(
            try harness.relay("config", "import", TestPaths.repositoryRoot.appendingPathComponent("config.example.json").path).status, 0)
        var list = try harness.relay("config", "list")
        XCTAssertEqual(list.stdout.split(separator: "\n").count, 6, list.stdout)
        XCTAssertTrue(list.stdout.contains("* 6f1c2e0a"), list.stdout)
        XCTAssertEqual(try harness.relay("config", "use", "Local gallery (scripts/gallery.py)").status, 0)
        list = try harness.relay("config", "list")
        XCTAssertTrue(list.stdout.contains("* a3e9c1b2"), list.stdout)
        let shown = try harness.relay("config", "show")
        XCTAssertTrue(shown.stdout.contains("\"url\" : \"http://127.0.0.1:8080/upload\""), shown.stdout)
        XCTAssertEqual(try harness.relay("config", "remove", "a3e9c1b2").status, 0)
        list = try harness.relay("config", "list")
        XCTAssertEqual(list.stdout.split(separator: "\n").count, 5, list.stdout)
        XCTAssertTrue(list.stdout.contains("* "), "another config is selected after removing the selected one")
    }

    /// A destination setting relay cannot use stops the run before the first photo, naming it,
    /// instead of failing every upload later.
    func testAnUnreadableKeyOrAWrongSettingIsRefusedNamingIt() throws {
        let harness = try RelayHarness()
        let priority = try harness.relay("config", "add", "--url", "http://127.0.0.1:9/upload", "--priority", "urgent")
        XCTAssertEqual(priority.status, 3)
        XCTAssertTrue(priority.stderr.contains("priority is normal or low") && !priority.stderr.contains("--field"), priority.stderr)
        XCTAssertEqual(
            try harness.relay(
                "config", "add", "--url", "sftp://photo@127.0.0.1:9/in", "--ssh-key",
                harness.root.appendingPathComponent("missing_ed25519").path, "--note", "archive"
            ).status, 0)
        let run = try harness.relay("run", "--folder", harness.dropFolder.path, "--config", "archive")
        XCTAssertEqual(run.status, 3, run.stderr)
        XCTAssertTrue(run.stderr.contains("'sshKey' cannot be used: cannot read"), run.stderr)
    }
}
