import Foundation
import TestSupport
import XCTest

/// Issue 50's loupe as an editor uses it: the real relay executable, the editor's page in
/// headless Chromium as a 390 × 844 phone on a venue's Wi-Fi (20 Mbit/s, 40 ms), driven through
/// its DevTools protocol by scripts/chromium_desk.py: a tap opens the loupe, arrows and swipes
/// step, a double tap zooms to 100 %, a caption is written and the photo approved; the gallery's
/// copy carries the caption (read by exiftool), the backup's, sent before, does not.
final class LoupeDeskTests: XCTestCase {
    private struct Step: Decodable {
        var step: Int
        var label: String?
        var value: JSONValue?
        var seconds: Double?
        var error: String?
    }

    /// A step's value, as far as the test reads it.
    private enum JSONValue: Decodable, Equatable {
        case text(String)
        case number(Double)
        case flag(Bool)
        case other

        init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) {
                self = .text(text)
            } else if let number = try? container.decode(Double.self) {
                self = .number(number)
            } else if let flag = try? container.decode(Bool.self) {
                self = .flag(flag)
            } else {
                self = .other
            }
        }
    }

    private func list(_ port: Int) throws -> ReviewList {
        try ReviewList.get(port)
    }

    /// Plays `steps` on the page; the steps by label.
    private func play(_ url: String, _ steps: [[String: Any]]) throws -> [String: Step] {
        let json = String(decoding: try JSONSerialization.data(withJSONObject: steps), as: UTF8.self)
        let script = TestPaths.repositoryRoot.appendingPathComponent("scripts/chromium_desk.py").path
        let result = try Subprocess.run(URL(fileURLWithPath: "/usr/bin/python3"), [script, url, json], timeout: 180)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        let played = result.stdout.split(separator: "\n").compactMap { try? JSONDecoder().decode(Step.self, from: Data($0.utf8)) }
        return Dictionary(played.compactMap { step in step.label.map { ($0, step) } }, uniquingKeysWith: { _, last in last })
    }

    func testAnEditorOpensStepsZoomsCaptionsAndApprovesOnAPhone() throws {
        let gallery = try GalleryProcess()
        let backup = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: backup, note: "backup")
        XCTAssertEqual(try harness.relay("config", "add", "--url", gallery.uploadURL, "--note", "gallery", "--send", "approved").status, 0)
        harness.environment["RELAY_EDITOR_TOKEN"] = "editor-secret"
        harness.environment["RELAY_WALL_TOKEN"] = "wall-secret"
        let port = try XCTUnwrap(ClosedPort.make())
        let relay = try harness.startRun(["--config", "gallery", "--config", "backup", "--status", "\(port)", "--wall-credit"])
        defer { _ = relay.stop(signal: SIGKILL, timeout: 5) }
        relay.assertSays("watching for new photos")
        // Three photos, the middle one shot upright (EXIF orientation 6: stored on its side).
        for (number, orientation) in [(1, 1), (2, 6), (3, 1)] {
            let name = String(format: "IMG_%04d.JPG", number)
            let part = harness.root.appendingPathComponent(name)
            try CameraJPEG.write(to: part, .init(width: 3000, height: 2000, orientation: orientation, seed: 20 + number))
            try FileManager.default.moveItem(at: part, to: harness.dropFolder.appendingPathComponent(name))
            // One at a time, so that the list's order is the names'.
            XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { ((try? self.list(port).total) ?? 0) == number || !relay.isRunning })
        }
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { ((try? backup.photos().count) ?? 0) == 3 || !relay.isRunning }, relay.stderr)
        let ids = try XCTUnwrap(list(port).photos).map(\.id)  // newest first: 3, 2, 1
        XCTAssertEqual(ids.count, 3)
        guard ids.count == 3 else { return }

        let shows = { (id: String) in "document.getElementById('loupe-img').dataset.shown === '\(id)'" }
        let shots = "/tmp/relay-status-shots"
        let steps: [[String: Any]] = [
            ["wait": "document.querySelectorAll('.photo img').length === 3", "timeout": 10],
            ["tap": ".photo[data-id='\(ids[0])'] img"],
            ["wait": shows(ids[0]), "label": "opened", "timeout": 10],
            ["screenshot": "\(shots)/loupe.png"],
            ["key": "ArrowRight"],
            ["wait": shows(ids[1]), "label": "stepped", "timeout": 10],
            [
                "eval": "[document.getElementById('loupe-img').naturalWidth, document.getElementById('loupe-img').naturalHeight].join('x')",
                "label": "upright",
            ],
            ["swipe": "left", "on": "#loupe-stage"],
            ["wait": shows(ids[2]), "label": "swiped", "timeout": 10],
            ["swipe": "right", "on": "#loupe-stage"],
            ["wait": shows(ids[1]), "timeout": 10],
            ["double_tap": "#loupe-img", "at": [0.5, 0.5]],
            ["wait": "document.getElementById('loupe-crop').dataset.shown === '\(ids[1])'", "label": "zoomed", "timeout": 15],
            [
                "eval": "(() => { const c = document.getElementById('loupe-crop'); return c.naturalWidth + 'x' + c.naturalHeight; })()",
                "label": "crop",
            ],
            ["screenshot": "\(shots)/loupe-zoom.png"],
            // Zoomed, a swipe drags the 100 % view about the photo instead of stepping.
            ["eval": "window.__left = document.getElementById('loupe-crop').dataset.left"],
            ["swipe": "left", "on": "#loupe-stage"],
            [
                "wait": "document.getElementById('loupe-crop').dataset.left !== window.__left", "label": "panned",
                "timeout": 15,
            ],
            [
                "eval": "[document.body.dataset.loupe, +document.getElementById('loupe-crop').dataset.left > +window.__left].join()",
                "label": "panned right",
            ],
            ["key": "z"],
            ["wait": "document.getElementById('loupe-crop').hidden", "label": "unzoomed"],
            ["type": "#caption", "text": "The first dance"],
            ["type": "#title", "text": "Dance"],
            ["click": "#caption-save"],
            ["wait": "document.getElementById('caption-state').textContent.startsWith('saved ·')", "label": "saved", "timeout": 10],
            ["eval": "document.getElementById('caption-state').textContent", "label": "said"],
            ["key": "p"],
            ["wait": "document.getElementById('l-pin').textContent === 'Unpin'", "label": "pinned", "timeout": 10],
            ["key": "a"],
            ["wait": "document.body.dataset.loupe === '\(ids[2])' && \(shows(ids[2]))", "label": "moved on", "timeout": 10],
            ["screenshot": "\(shots)/loupe-after-approve.png"],
        ]
        let played = try play("http://127.0.0.1:\(port)/review?token=editor-secret", steps)
        for label in ["opened", "stepped", "swiped", "zoomed", "unzoomed", "saved", "moved on"] {
            XCTAssertNotNil(played[label]?.seconds, "step '\(label)' ran")
        }
        XCTAssertEqual(played["upright"]?.value, .text(Self.portraitSize(played["upright"]?.value)), "the turned photo is shown upright")
        if case .text(let crop)? = played["crop"]?.value {
            let sides = crop.split(separator: "x").compactMap { Int($0) }
            XCTAssertEqual(sides.count, 2)
            // 100 %: one photo pixel per device pixel of the stage (390 CSS px at 3x is 1170).
            XCTAssertTrue(sides.first.map { $0 > 390 && $0 <= 2000 } ?? false, crop)
        } else {
            XCTFail("no crop size: \(String(describing: played["crop"]))")
        }
        let wall = try RawHTTP.get(host: "127.0.0.1", port: port, path: "/wall.json?token=wall-secret")
        let shown = try JSONSerialization.jsonObject(with: wall.body) as? [String: Any]
        XCTAssertEqual(shown?["pinned"] as? String, ids[1], "P pinned the photo to the wall")
        let pictures = shown?["pictures"] as? [[String: Any]]
        XCTAssertEqual(pictures?.first { $0["id"] as? String == ids[1] }?["caption"] as? String, "The first dance", "with its caption")
        XCTAssertEqual(
            played["panned right"]?.value, .text("\(ids[1]),true"), "the same photo, its view moved right with the finger's leftward drag")
        XCTAssertEqual(played["said"]?.value, .text("saved · goes to gallery; already sent to backup: nothing changes there"))
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) { (try? gallery.photos().map(\.name)) == ["IMG_0002.JPG"] || !relay.isRunning }, relay.stderr)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
        let tags = ["-IPTC:Caption-Abstract", "-XMP-dc:Description", "-XMP-dc:Title"]
        let sent = try ExifTool.tags(gallery.photosDirectory.appendingPathComponent("IMG_0002.JPG"), tags)
        XCTAssertEqual(sent["Caption-Abstract"], "The first dance")
        XCTAssertEqual(sent["Description"], "The first dance")
        XCTAssertEqual(sent["Title"], "Dance")
        let backed = try ExifTool.tags(backup.photosDirectory.appendingPathComponent("IMG_0002.JPG"), tags)
        XCTAssertNil(backed["Caption-Abstract"], "the backup's copy went before the caption")
        for shot in ["loupe", "loupe-zoom", "loupe-after-approve"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: "\(shots)/\(shot).png"), shot)
        }
    }

    /// "WxH" when `value` is a taller-than-wide size, else a marker that fails the comparison.
    private static func portraitSize(_ value: JSONValue?) -> String {
        guard case .text(let size)? = value else { return "no size" }
        let sides = size.split(separator: "x").compactMap { Int($0) }
        return sides.count == 2 && sides[1] > sides[0] ? size : "not portrait"
    }
}
