import Foundation
import PhotoMetadata
import TestSupport
import XCTest

@testable import CameraSim

/// The photographer protecting or rating a shot on the simulated body (issue 41): what the card
/// then says, checked as a third party reads it (gphoto2 sees the protection, exiftool the
/// rating in the downloaded file), and the ObjectInfoChanged the card queues for the session.
final class SimSelectionTests: XCTestCase {
    func testProtectionAndARatingAreWhatGPhoto2AndExiftoolRead() throws {
        let scratch = try TestPaths.makeTemporaryDirectory("sim-selection")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let sim = try CameraSimProcess(profile: "generic", arguments: ["--initial-photos", "3"])
        defer { sim.stop() }
        sim.control("protect 2")
        sim.control("rate 3 4")
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { sim.log.contains("rate DSC00003.JPG") }, sim.log)
        XCTAssertTrue(sim.log.contains("protect DSC00002.JPG"), sim.log)
        guard GPhoto2.executable != nil else { return XCTFail(GPhoto2.missingMessage) }
        let listed = try GPhoto2.run(port: sim.gphotoPort, ["--list-files"], in: scratch, home: scratch, timeout: 60)
        XCTAssertEqual(listed.status, 0, listed.stderr)
        let lines = listed.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains { $0.contains("DSC00002.JPG") && $0.contains(" r- ") }, "protected: read only\n\(listed.stdout)")
        XCTAssertTrue(lines.contains { $0.contains("DSC00001.JPG") && $0.contains(" rd ") }, listed.stdout)
        let got = try GPhoto2.run(port: sim.gphotoPort, ["--get-file", "3"], in: scratch, home: scratch, timeout: 60)
        XCTAssertEqual(got.status, 0, got.stderr)
        let exiftool = try XCTUnwrap(Subprocess.which("exiftool"), "exiftool (libimage-exiftool-perl) is a test dependency")
        let rating = try Subprocess.run(exiftool, ["-s3", "-XMP:Rating", scratch.appendingPathComponent("DSC00003.JPG").path], timeout: 30)
        XCTAssertEqual(rating.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "4")
        XCTAssertEqual(PhotoRating.read(file: scratch.appendingPathComponent("DSC00003.JPG")), 4, "relay reads what the body wrote")
    }

    /// gphoto2 waiting for events hears the protection as FILECHANGED: libgphoto2 reads the
    /// simulator's ObjectInfoChanged (0x4007) as a changed file.
    func testGPhoto2HearsAProtectionAsAChangedFile() throws {
        let scratch = try TestPaths.makeTemporaryDirectory("sim-selection-events")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let sim = try CameraSimProcess(profile: "generic", arguments: ["--initial-photos", "3"])
        defer { sim.stop() }
        let executable = try XCTUnwrap(GPhoto2.executable, GPhoto2.missingMessage)
        let waiting = try Subprocess(
            executable, ["--port", sim.gphotoPort, "--wait-event=6s"], environment: ["HOME": scratch.path, "LANG": "C", "LC_ALL": "C"],
            currentDirectory: scratch)
        defer { _ = waiting.stop(signal: SIGKILL, timeout: 5) }
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { waiting.stdout.contains("Waiting for") || !waiting.isRunning }, waiting.stderr)
        sim.control("protect 1")
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) { waiting.stdout.contains("FILECHANGED DSC00001.JPG") || !waiting.isRunning },
            waiting.stdout + waiting.stderr)
    }

    func testTheCardQueuesEachChangeOnceAndKeepsTheJPEGWhole() throws {
        var options = try SimOptions.parse(["--profile", "generic", "--initial-photos", "2"])
        options.photoSize = 20_000
        let card = try CameraCard(options: options)
        XCTAssertEqual(CameraCard.shotNumber("IMG_0003.JPG"), 3)
        XCTAssertEqual(CameraCard.shotNumber("DSC_0012.NEF"), 12)
        XCTAssertEqual(card.setProtection(ofShot: 1, true).map(\.isProtected), [true])
        XCTAssertEqual(card.setProtection(ofShot: 1, true).count, 1, "named again")
        XCTAssertEqual(card.takeChangedObjects().count, 1, "but changed once")
        let rated = try XCTUnwrap(card.rate(shot: 2, stars: 5).first)
        let rerated = try XCTUnwrap(card.rate(shot: 2, stars: -1).first)
        let bytes = try rerated.content.read(offset: 0, count: rerated.size)
        XCTAssertEqual(PhotoRating.read(head: bytes), -1, "the last rating stands, in one XMP packet")
        XCTAssertEqual(try JPEGSegments(bytes).segments.filter { $0.kind == .xmp }.count, 1)
        XCTAssertEqual(rerated.size, rated.size + 1, "the packet was replaced, not added to: \"-1\" is a byte longer than \"5\"")
        XCTAssertEqual(card.takeChangedObjects(), [rated.handle])
        XCTAssertTrue(card.rate(shot: 9, stars: 3).isEmpty, "no such shot")
    }
}
