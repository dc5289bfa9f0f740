import Foundation
import RelayCore
import TestSupport
import XCTest

/// The editor's page end to end: the real relay executable serving `/review` beside its status
/// page, two editors deciding over plain HTTP at once, the page rendered by headless Chromium,
/// photos from the hot folder reaching real galleries.
final class ReviewPageTests: XCTestCase {
    private func list(_ port: Int, since: Int? = nil) throws -> ReviewList {
        try ReviewList.get(port, since.map { "since=\($0)" } ?? "")
    }

    private static func decide(_ port: Int, _ ids: [String], _ decision: String, token: String = "editor-secret") throws -> RawHTTP.Response
    {
        try RawHTTP.send(
            host: "127.0.0.1", port: port, method: "POST", path: "/review/decide", headers: ["Authorization": "Bearer \(token)"],
            body: try JSONSerialization.data(withJSONObject: ["ids": ids, "decision": decision]))
    }

    func testTwoEditorsDecideAtOnceAndEachSeesTheOthersDecisionWithinASecond() throws {
        let gallery = try GalleryProcess()
        let backup = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: backup, note: "backup")
        XCTAssertEqual(try harness.relay("config", "add", "--url", gallery.uploadURL, "--note", "gallery", "--send", "approved").status, 0)
        harness.environment["RELAY_STATUS_TOKEN"] = "viewer-secret"
        harness.environment["RELAY_EDITOR_TOKEN"] = "editor-secret"
        harness.environment["RELAY_WALL_TOKEN"] = "wall-secret"
        let port = try XCTUnwrap(ClosedPort.make())
        let relay = try harness.startRun([
            "--config", "gallery", "--config", "backup", "--status", "\(port)", "--guest-link", "https://gallery.example/gala",
        ])
        defer { _ = relay.stop(signal: SIGKILL, timeout: 5) }
        relay.assertSays("editor's page at http://127.0.0.1:\(port)/review?token=editor-secret")
        // Dropped once the folder is watched: a file already there at the first look is taken
        // only once it has settled, after ones that arrive later (newest first would not hold).
        relay.assertSays("watching for new photos")
        _ = try harness.dropPhotos(5)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 60) { ((try? self.list(port).total) ?? 0) == 5 || !relay.isRunning }, relay.stderr)
        let held = try XCTUnwrap(list(port).photos)
        XCTAssertEqual(held.map(\.name), (1...5).reversed().map { String(format: "IMG_%04d.JPG", $0) }, "newest first")

        // A viewer of the status page cannot decide, and nothing changes on a GET.
        XCTAssertEqual(try Self.decide(port, [held[0].id], "approve", token: "viewer-secret").status, 401)
        XCTAssertEqual(try RawHTTP.get(host: "127.0.0.1", port: port, path: "/review/decide?token=editor-secret").status, 405)

        // Editor B watches; editor A approves: B's next look (its page asks every 0.8 s) shows it
        // gone, since a decision is applied before its POST is answered.
        let seen = try list(port)
        XCTAssertEqual(try Self.decide(port, [held[0].id], "approve").status, 200)
        let changed = try list(port, since: seen.version)
        XCTAssertFalse(changed.unchanged)
        XCTAssertEqual(changed.photos?.map(\.id), held.dropFirst().map(\.id))
        XCTAssertTrue(try list(port, since: changed.version).unchanged, "and nothing more until the next change")

        // Both at once: A rejects two, B approves one; then B tries one that was sent meanwhile.
        let answers = LockedBox([Int]())
        DispatchQueue.concurrentPerform(iterations: 2) { editor in
            let answer =
                editor == 0 ? try? Self.decide(port, [held[1].id, held[2].id], "reject") : try? Self.decide(port, [held[3].id], "approve")
            answers.withLockedValue { $0.append(answer?.status ?? 0) }
        }
        XCTAssertEqual(answers.withLockedValue { $0 }, [200, 200])
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { ((try? gallery.photos().count) ?? 0) == 2 || !relay.isRunning }, relay.stderr)
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) { ((try? harness.status().queued.map(\.id)) ?? []).contains(held[0].id) == false },
            "the first approved photo left the spool once both destinations had it")
        // Too late: it was sent. Its sidecar is gone once `relay status` no longer lists it, but
        // the run may still be removing its files: then it answers "already sent" (409) instead
        // of "not in the spool" (404). Either way nothing changes, and it says why.
        let stale = try Self.decide(port, [held[0].id], "reject")
        XCTAssertTrue([404, 409].contains(stale.status), "too late: it was sent (\(stale.status))")
        XCTAssertTrue(String(decoding: stale.body, as: UTF8.self).contains(#""error""#))

        // A mistaken reject is undone on the page: the photo, kept for that, is held again.
        XCTAssertEqual(try Self.decide(port, [held[1].id], "undo").status, 200)
        XCTAssertEqual(Set(try gallery.photos().map(\.name)), [held[0].name, held[3].name])
        XCTAssertEqual(try list(port).photos?.map(\.name), [held[1].name, held[4].name], "two left to decide, newest first")

        let thumbnail = try RawHTTP.get(host: "127.0.0.1", port: port, path: "/review/thumb/\(held[4].id).jpg?token=editor-secret")
        XCTAssertEqual(thumbnail.status, 200)
        XCTAssertTrue(thumbnail.body.starts(with: [0xFF, 0xD8]), "a JPEG")

        try checkTheWall(port, shows: [held[0], held[3]].map(\.id))

        let url = "http://127.0.0.1:\(port)/review?token=editor-secret"
        let shot = URL(fileURLWithPath: "/tmp/relay-status-shots/review-page.png")
        let page = try HeadlessChromium.screenshot(url, to: shot)
        XCTAssertEqual(page.status, 0, page.stderr)
        XCTAssertTrue(page.stdout.contains(held[4].name), page.stdout)
        XCTAssertTrue(page.stdout.contains("2 held"), page.stdout)
        XCTAssertTrue(page.stdout.contains("review/thumb/\(held[4].id).jpg"), page.stdout)
        XCTAssertTrue(FileManager.default.fileExists(atPath: shot.path))
        print("review page screenshot: \(shot.path)")
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
    }

    /// The keyboard on a laptop, pressed in headless Chromium through its DevTools protocol
    /// (scripts/chromium_keys.py): arrows move, A approves, space selects, R rejects, U undoes.
    func testTheKeyboardDecides() throws {
        let gallery = try GalleryProcess()
        let backup = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: backup, note: "backup")
        XCTAssertEqual(try harness.relay("config", "add", "--url", gallery.uploadURL, "--note", "gallery", "--send", "approved").status, 0)
        harness.environment["RELAY_EDITOR_TOKEN"] = "editor-secret"
        let port = try XCTUnwrap(ClosedPort.make())
        let relay = try harness.startRun(["--config", "gallery", "--config", "backup", "--status", "\(port)"])
        defer { _ = relay.stop(signal: SIGKILL, timeout: 5) }
        relay.assertSays("watching for new photos")
        _ = try harness.dropPhotos(3)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 60) { ((try? self.list(port).total) ?? 0) == 3 || !relay.isRunning }, relay.stderr)
        // Null until the page has shown its first list.
        let shown =
            "document.getElementById('count').textContent.endsWith(' held') ? "
            + "[document.getElementById('count').textContent, [...document.querySelectorAll('.photo .name')]"
            + ".map(n => n.textContent).join(','), document.querySelector('.photo.focused .name')?.textContent,"
            + " [...document.querySelectorAll('.photo.selected .name')].map(n => n.textContent).join(',')].join('|') : null"
        let result = try Subprocess.run(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [
                TestPaths.repositoryRoot.appendingPathComponent("scripts/chromium_keys.py").path,
                "http://127.0.0.1:\(port)/review?token=editor-secret", shown, "ArrowRight", "a", "Space", "r", "u",
            ], timeout: 120)
        XCTAssertEqual(result.status, 0, result.stderr)
        let values = result.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["value"] as? String
        }
        // The photos came in at once: their order is the spool's, read from the page first.
        let names = try XCTUnwrap(values.first?.split(separator: "|", omittingEmptySubsequences: false).dropFirst().first)
            .split(separator: ",").map(String.init)
        XCTAssertEqual(names.count, 3, result.stdout)
        guard names.count == 3 else { return }
        let (n0, n1, n2) = (names[0], names[1], names[2])
        XCTAssertEqual(
            values,
            [
                "3 held|\(n0),\(n1),\(n2)|\(n0)|",
                "3 held|\(n0),\(n1),\(n2)|\(n1)|",  // → moves to the next
                "2 held|\(n0),\(n2)|\(n2)|",  // A approves the one in focus
                "2 held|\(n0),\(n2)|\(n2)|\(n2)",  // space selects it
                "1 held|\(n0)|\(n0)|",  // R rejects the selection
                "2 held|\(n0),\(n2)|\(n0)|",  // U undoes the rejection
            ], result.stdout)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { (try? gallery.photos().map(\.name)) == [n1] }, "the approved one is sent")
    }

    /// The venue wall shows the approved photos, newest first, with the guests' link; its token
    /// opens nothing else, and the other pages' tokens do not open it.
    private func checkTheWall(_ port: Int, shows approved: [String]) throws {
        struct Wall: Decodable {
            var guestLink: String?
            var pictures: [Picture]?
            struct Picture: Decodable { var id: String }
        }
        var wall: Wall?
        XCTAssertTrue(
            try Subprocess.waitUntil(timeout: 30) {
                let answer = try RawHTTP.get(host: "127.0.0.1", port: port, path: "/wall.json?token=wall-secret")
                wall = try JSONDecoder().decode(Wall.self, from: answer.body)
                return Set(wall?.pictures?.map(\.id) ?? []) == Set(approved)
            }, "the wall shows each approved photo and no other")
        XCTAssertEqual(wall?.guestLink, "https://gallery.example/gala")
        for path in ["/review.json", "/status.json", "/metrics"] {
            XCTAssertEqual(try RawHTTP.get(host: "127.0.0.1", port: port, path: "\(path)?token=wall-secret").status, 401, path)
        }
        for token in ["editor-secret", "viewer-secret"] {
            XCTAssertEqual(try RawHTTP.get(host: "127.0.0.1", port: port, path: "/wall.json?token=\(token)").status, 401)
        }
        let picture = try RawHTTP.get(host: "127.0.0.1", port: port, path: "/wall/photo/\(approved[0]).jpg?token=wall-secret")
        XCTAssertEqual(picture.status, 200)
        XCTAssertTrue(picture.body.starts(with: [0xFF, 0xD8]))
        let code = try RawHTTP.get(host: "127.0.0.1", port: port, path: "/wall/qr.svg?token=wall-secret")
        XCTAssertTrue(String(decoding: code.body, as: UTF8.self).hasPrefix("<svg"))
        let url = "http://127.0.0.1:\(port)/wall?token=wall-secret"
        let shot = URL(fileURLWithPath: "/tmp/relay-status-shots/venue-wall.png")
        let page = try HeadlessChromium.screenshot(url, to: shot)
        XCTAssertEqual(page.status, 0, page.stderr)
        XCTAssertTrue(page.stdout.contains("https://gallery.example/gala"), page.stdout)
        XCTAssertTrue(page.stdout.contains("wall/photo/"), "a picture is shown:\n\(page.stdout)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: shot.path))
        print("venue wall screenshot: \(shot.path)")
    }
}
