import Foundation
import TestSupport
import XCTest

/// Issue 50's captions end to end: the real relay executable, a gallery that waits for the
/// editor and a backup that takes every photo at once; captions set on the editor's page (POST
/// /review/caption) and with `relay review caption`, read back from what each gallery received
/// by exiftool, as the gallery's software would.
final class CaptionDeskTests: XCTestCase {
    private func list(_ port: Int) throws -> ReviewList {
        try ReviewList.get(port)
    }

    private func caption(_ port: Int, _ body: [String: String]) throws -> (status: Int, answer: [String: Any]) {
        let answer = try RawHTTP.send(
            host: "127.0.0.1", port: port, method: "POST", path: "/review/caption", headers: ["Authorization": "Bearer editor-secret"],
            body: try JSONSerialization.data(withJSONObject: body))
        return (answer.status, (try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any]) ?? [:])
    }

    func testTheEditorsCaptionReachesTheGalleryNotTheBackupThatSentBefore() throws {
        let gallery = try GalleryProcess()
        let backup = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: backup, note: "backup")
        XCTAssertEqual(try harness.relay("config", "add", "--url", gallery.uploadURL, "--note", "gallery", "--send", "approved").status, 0)
        let stamp = try harness.relay("stamp", "set", "creator=Anna Lee", "caption={caption} — Photo: {creator}")
        XCTAssertEqual(stamp.status, 0, stamp.stderr)
        harness.environment["RELAY_EDITOR_TOKEN"] = "editor-secret"
        let port = try XCTUnwrap(ClosedPort.make())
        let relay = try harness.startRun(["--config", "gallery", "--config", "backup", "--status", "\(port)"])
        defer { _ = relay.stop(signal: SIGKILL, timeout: 5) }
        relay.assertSays("watching for new photos")
        for number in 1...3 {
            let name = String(format: "IMG_%04d.JPG", number)
            let part = harness.root.appendingPathComponent(name)
            try CameraJPEG.write(to: part, .init(width: 640, height: 480, seed: number))
            try FileManager.default.moveItem(at: part, to: harness.dropFolder.appendingPathComponent(name))
        }
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 60) {
                ((try? self.list(port).total) ?? 0) == 3 && ((try? backup.photos().count) ?? 0) == 3 || !relay.isRunning
            }, relay.stderr)
        let held = try XCTUnwrap(list(port).photos)
        let byName = Dictionary(uniqueKeysWithValues: held.map { ($0.name, $0.id) })
        let first = try XCTUnwrap(byName["IMG_0001.JPG"])
        let second = try XCTUnwrap(byName["IMG_0002.JPG"])

        // On the page: recorded before the answer, which says where it goes and where not.
        let set = try caption(port, ["id": first, "caption": "  The first dance  ", "title": "First dance"])
        XCTAssertEqual(set.status, 200, "\(set.answer)")
        let outcome = try XCTUnwrap(set.answer["outcome"] as? [String: [String]])
        XCTAssertEqual(outcome["goesTo"], ["gallery"])
        XCTAssertEqual(outcome["alreadySent"], ["backup"], "the backup's copy went before the caption")
        XCTAssertEqual(set.answer["sentence"] as? String, "goes to gallery; already sent to backup: nothing changes there")
        XCTAssertEqual(try list(port).photos?.first { $0.id == first }?.caption, "The first dance", "listed, trimmed")

        // Bad input: a clear error and nothing recorded.
        XCTAssertEqual(try caption(port, ["id": "0000", "caption": "x"]).status, 404)
        let long = try caption(port, ["id": second, "caption": String(repeating: "é", count: 1001)])
        XCTAssertEqual(long.status, 400)
        XCTAssertTrue((long.answer["error"] as? String)?.contains("2002 bytes") == true, "\(long.answer)")
        XCTAssertEqual(try list(port).photos?.first { $0.id == second }?.caption, nil)

        // From the command line, while relay runs: the journal, read by the run at once.
        let command = try harness.relay("review", "caption", "IMG_0002.JPG", "Cake, cut", "--title", "The cake")
        XCTAssertEqual(command.status, 0, command.stderr)
        XCTAssertTrue(command.stdout.contains("caption of IMG_0002.JPG set: goes to gallery; already sent to backup"), command.stdout)
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 10) { (try? self.list(port).photos?.first { $0.id == second }?.title) == "The cake" },
            "the run reads the journal")

        let approve = try RawHTTP.send(
            host: "127.0.0.1", port: port, method: "POST", path: "/review/decide", headers: ["Authorization": "Bearer editor-secret"],
            body: try JSONSerialization.data(withJSONObject: ["ids": held.map(\.id), "decision": "approve"]))
        XCTAssertEqual(approve.status, 200)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { ((try? gallery.photos().count) ?? 0) == 3 || !relay.isRunning }, relay.stderr)
        // Sent, and gone from the spool: still on the desk's "approved" filter for two minutes.
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { ((try? harness.status().queued.count) ?? -1) == 0 })
        XCTAssertEqual(
            try ReviewList.get(port, "state=approved").photos?.map(\.name),
            ["IMG_0003.JPG", "IMG_0002.JPG", "IMG_0001.JPG"])
        XCTAssertEqual(try list(port).total, 0, "none undecided")
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)

        let tags = ["-IPTC:Caption-Abstract", "-XMP-dc:Description", "-IPTC:ObjectName", "-XMP-dc:Title"]
        let one = try ExifTool.tags(gallery.photosDirectory.appendingPathComponent("IMG_0001.JPG"), tags)
        XCTAssertEqual(one["Caption-Abstract"], "The first dance — Photo: Anna Lee", "the template's words around the editor's")
        XCTAssertEqual(one["Description"], "The first dance — Photo: Anna Lee")
        XCTAssertEqual(one["ObjectName"], "First dance")
        XCTAssertEqual(one["Title"], "First dance")
        let two = try ExifTool.tags(gallery.photosDirectory.appendingPathComponent("IMG_0002.JPG"), tags)
        XCTAssertEqual(two["Caption-Abstract"], "Cake, cut — Photo: Anna Lee")
        XCTAssertEqual(two["Title"], "The cake")
        let three = try ExifTool.tags(gallery.photosDirectory.appendingPathComponent("IMG_0003.JPG"), tags)
        XCTAssertEqual(three["Caption-Abstract"], "Photo: Anna Lee", "no editor's words: the template's, without a dangling dash")
        let backed = try ExifTool.tags(backup.photosDirectory.appendingPathComponent("IMG_0001.JPG"), tags)
        XCTAssertEqual(backed["Caption-Abstract"], "Photo: Anna Lee", "the backup's copy was sent before the caption")

        let history = try harness.history().filter(\.success)
        let captioned = history.filter { $0.caption != nil }
        XCTAssertEqual(Set(captioned.map(\.fileName)), ["IMG_0001.JPG", "IMG_0002.JPG"])
        XCTAssertEqual(Set(captioned.compactMap(\.destination)), ["gallery"])
        XCTAssertEqual(captioned.first { $0.fileName == "IMG_0001.JPG" }?.caption, .init(caption: "The first dance", title: "First dance"))
        let table = try harness.relay("history")
        XCTAssertTrue(table.stdout.contains("caption: The first dance"), table.stdout)
    }

    /// Written while relay is stopped, a caption waits in the journal: the next run stamps it.
    func testACaptionWrittenWhileRelayIsStoppedIsSentWhenItRuns() throws {
        let gallery = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "gallery", ["--send", "approved"])
        var relay = try harness.startRun(["--config", "gallery"])
        relay.assertSays("watching for new photos")
        let part = harness.root.appendingPathComponent("IMG_0001.JPG")
        try CameraJPEG.write(to: part, .init(width: 640, height: 480, seed: 9))
        try FileManager.default.moveItem(at: part, to: harness.dropFolder.appendingPathComponent("IMG_0001.JPG"))
        relay.assertSays("IMG_0001.JPG is held for gallery")
        XCTAssertEqual(relay.stop(), 0, relay.stderr)

        let set = try harness.relay("review", "caption", "IMG_0001.JPG", "Speeches")
        XCTAssertEqual(set.status, 0, set.stderr)
        XCTAssertTrue(set.stdout.contains("caption of IMG_0001.JPG set: goes to gallery"), set.stdout)
        let listed = try harness.relay("review", "list")
        XCTAssertTrue(listed.stdout.contains("“Speeches”"), "relay review list shows it: \(listed.stdout)")
        let tooLong = try harness.relay("review", "caption", "IMG_0001.JPG", "x", "--title", "a\nb")
        XCTAssertEqual(tooLong.status, 2, "a title with a line break is refused: \(tooLong.stdout)")
        XCTAssertTrue(tooLong.stderr.contains("a title is one line"), tooLong.stderr)
        XCTAssertEqual(try harness.relay("review", "approve", "IMG_0001.JPG").status, 0)

        relay = try harness.startRun(["--config", "gallery"])
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { ((try? gallery.photos().count) ?? 0) == 1 || !relay.isRunning }, relay.stderr)
        XCTAssertEqual(relay.stop(), 0, relay.stderr)
        let tags = try ExifTool.tags(gallery.photosDirectory.appendingPathComponent("IMG_0001.JPG"), ["-XMP-dc:Description"])
        XCTAssertEqual(tags["Description"], "Speeches", "no template: the editor's caption alone")
        let gone = try harness.relay("review", "caption", "IMG_0001.JPG", "Too late")
        XCTAssertEqual(gone.status, 0, gone.stderr)
        XCTAssertTrue(gone.stdout.contains("was already sent to gallery and has left the spool: nothing changes"), gone.stdout)
    }
}
