import Foundation
import TestSupport
import XCTest

/// Header values from `${ENV}` and Authorization never appear in history, logs, `relay config
/// show`, status or error messages; every state file is private (0600).
final class SecretsTests: XCTestCase {
    private let token = "tok-5ecret-9f8e7d"
    private let apiKey = "key-hidden-1a2b3c"

    func testSecretsStayOutOfEveryOutputAndFile() throws {
        let gallery = try GalleryProcess(arguments: ["--reject-name", "REJECT", "--fail-first", "1"])
        let harness = try RelayHarness()
        harness.environment["GALLERY_TOKEN"] = token
        harness.environment["GALLERY_KEY"] = apiKey
        var outputs: [String] = []
        let added = try harness.relay(
            "config", "add", "--url", gallery.uploadURL, "--note", "secret gallery",
            "--header", "Authorization: Bearer ${GALLERY_TOKEN}",
            "--header", "X-Api-Key: ${GALLERY_KEY}",
            "--header", "X-Literal-Token: \(token)")
        XCTAssertEqual(added.status, 0, added.stderr)
        outputs += [added.stdout, added.stderr]

        try harness.dropPhotos(2)
        let rejected = harness.dropFolder.appendingPathComponent("REJECT_0001.JPG")
        _ = try JPEGFixture.write(to: rejected, count: 30_000, seed: 9)
        let run = try harness.startRun()
        XCTAssertTrue(
            try Subprocess.waitUntil(timeout: 60) { try gallery.photos().count == 2 && run.stderr.contains("FAILED for good") },
            run.stderr)
        XCTAssertEqual(run.stop(signal: SIGINT, timeout: 30), 0)
        outputs += [run.stdout, run.stderr]
        XCTAssertTrue(
            try gallery.requests().contains { $0.headers["authorization"] == "Bearer \(token)" },
            "the secret does reach the gallery")

        for command in [
            ["config", "show"], ["config", "show", "--json"], ["config", "list"], ["config", "list", "--json"],
            ["history"], ["history", "--json"], ["status"], ["status", "--json"],
        ] {
            let result = try Subprocess.run(TestPaths.relayExecutable, command, environment: harness.environment)
            XCTAssertEqual(result.status, 0, "\(command): \(result.stderr)")
            outputs += [result.stdout, result.stderr]
        }
        var unset = harness.environment
        unset["GALLERY_KEY"] = nil
        let refused = try Subprocess.run(TestPaths.relayExecutable, ["run", "--folder", harness.dropFolder.path], environment: unset)
        XCTAssertEqual(refused.status, 3)
        XCTAssertTrue(refused.stderr.contains("GALLERY_KEY"), refused.stderr)
        outputs += [refused.stdout, refused.stderr]

        for output in outputs {
            XCTAssertFalse(output.contains(token) || output.contains(apiKey), "a secret was printed:\n\(output)")
        }
        let files = FileManager.default.enumerator(at: harness.home, includingPropertiesForKeys: [.isRegularFileKey])
        var checked = 0
        while let url = files?.nextObject() as? URL {
            guard (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true else { continue }
            checked += 1
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600, "\(url.path) is not private")
            guard url.pathExtension != "jpg" else { continue }
            let text = String(decoding: try Data(contentsOf: url), as: UTF8.self)
            XCTAssertFalse(text.contains(apiKey), "\(url.path) holds the value of ${GALLERY_KEY}")
            // The last good copy of configs.json (kept beside it, as private) is the user's file too.
            if !["configs.json", "configs.json.last-good"].contains(url.lastPathComponent) {
                XCTAssertFalse(text.contains(token), "\(url.path) holds the token (only the user's own configs.json may)")
            }
        }
        XCTAssertGreaterThanOrEqual(checked, 4, "configs, history, seen log, the failed photo and its sidecar")
    }
}
