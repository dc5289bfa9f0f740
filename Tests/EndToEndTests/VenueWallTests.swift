import Foundation
import TestSupport
import XCTest

/// The venue wall as the desk runs it (issue 50), end to end: a real `relay run` desk with
/// `--wall-credit --wall-logo --wall-seconds 2`, photographers sending over its HTTP inbox, the
/// editor approving and pinning over HTTP, and the wall rendered by headless Chromium on a
/// landscape screen: a portrait photo whole, its photographer's credit over its corner, the
/// event's logo, the pin holding the wall, and the photos turning at the pace asked.
final class VenueWallTests: XCTestCase {
    private struct Wall: Decodable {
        var pictures: [Picture]?
        var pinned: String?
        var seconds: Int?
        var credit: Bool?
        var logo: Bool?

        struct Picture: Decodable {
            var id: String
            var name: String
            var photographer: String?
        }
    }

    private struct Listed: Decodable {
        var photos: [Photo]?
        var pinned: String?

        struct Photo: Decodable {
            var id: String
            var name: String
            var photographer: String?
        }
    }

    private func get<Value: Decodable>(_ port: Int, _ path: String, as: Value.Type) throws -> Value {
        let answer = try RawHTTP.get(host: "127.0.0.1", port: port, path: path)
        guard answer.status == 200 else { throw HarnessError.command("GET \(path): HTTP \(answer.status)") }
        return try JSONDecoder().decode(Value.self, from: answer.body)
    }

    private func post(_ port: Int, _ path: String, _ body: [String: Any], token: String = "editor-secret") throws -> RawHTTP.Response {
        try RawHTTP.send(
            host: "127.0.0.1", port: port, method: "POST", path: path, headers: ["Authorization": "Bearer \(token)"],
            body: try JSONSerialization.data(withJSONObject: body))
    }

    /// A logo as an event's designer would hand it over: a PNG with transparency (Pillow).
    private func makeLogo(in folder: URL) throws -> URL {
        let logo = folder.appendingPathComponent("gala-logo.png")
        let drawing = """
            import sys
            from PIL import Image, ImageDraw, ImageFont
            image = Image.new("RGBA", (480, 240), (0, 0, 0, 0))
            draw = ImageDraw.Draw(image)
            draw.rounded_rectangle([0, 0, 479, 239], 48, fill=(196, 30, 58, 235))
            draw.text((240, 120), "GALA", fill="white", anchor="mm", font=ImageFont.load_default(size=110))
            image.save(sys.argv[1])
            """
        let result = try Subprocess.run(try XCTUnwrap(Subprocess.which("python3")), ["-c", drawing, logo.path], timeout: 60)
        XCTAssertEqual(result.status, 0, result.stderr)
        return logo
    }

    func testAPinnedPortraitFitsWithItsCreditAndTheLogoThenTheWallTurnsAtItsPace() throws {
        let port = try XCTUnwrap(ClosedPort.make())
        let folder = try TestPaths.makeTemporaryDirectory("venue-wall")
        defer { try? FileManager.default.removeItem(at: folder) }
        let logo = try makeLogo(in: folder)
        let desk = try DeskRun(
            config: ["--send", "approved"],
            run: [
                "--status", "\(port)", "--wall-credit", "--wall-logo", logo.path, "--wall-seconds", "2", "--guest-link",
                "https://gallery.example/gala",
            ], environment: ["RELAY_EDITOR_TOKEN": "editor-secret", "RELAY_WALL_TOKEN": "wall-secret"])
        // Two landscapes from anna; a portrait from ben, stored on its side (EXIF orientation 6)
        // and within the wall's 1920 px, so that its picture is a copy turned upright.
        let photos: [(name: String, login: String, options: CameraJPEG.Options)] = [
            ("LAND_0001.JPG", "anna", .init(width: 2400, height: 1600, seed: 21)),
            ("LAND_0002.JPG", "anna", .init(width: 2400, height: 1600, seed: 22)),
            ("PORT_0001.JPG", "ben", .init(width: 1600, height: 1200, orientation: 6, seed: 23)),
        ]
        for photo in photos {
            let file = folder.appendingPathComponent(photo.name)
            try CameraJPEG.write(to: file, photo.options)
            let sent = try desk.curl([
                "-H", "Authorization: Bearer \(DeskRun.tokens[photo.login]!)", "-T", file.path, desk.uploadURL + "/" + photo.name,
            ])
            XCTAssertEqual(sent.status, 201, sent.body)
        }
        var held: [Listed.Photo] = []
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 60) {
                held = (try? self.get(port, "/review.json?token=editor-secret", as: Listed.self).photos) ?? []
                return held.count == 3 || !desk.relay.isRunning
            }, desk.relay.stderr)
        // The desk names each photo after who sent it: anna_LAND_0001.JPG.
        let byName = Dictionary(
            uniqueKeysWithValues: held.map { ($0.name.split(separator: "_", maxSplits: 1).last.map(String.init) ?? "", $0) })
        let (land1, land2, portrait) = try (
            XCTUnwrap(byName["LAND_0001.JPG"]), XCTUnwrap(byName["LAND_0002.JPG"]), XCTUnwrap(byName["PORT_0001.JPG"])
        )
        XCTAssertEqual(portrait.photographer, "ben")

        // The landscapes are approved and go live, with their photographer's credit.
        let approved = try post(port, "/review/decide", ["ids": [land1.id, land2.id], "decision": "approve"])
        XCTAssertEqual(approved.status, 200, String(decoding: approved.body, as: UTF8.self))
        var wall: Wall?
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) {
                wall = try? self.get(port, "/wall.json?token=wall-secret", as: Wall.self)
                return Set(wall?.pictures?.map(\.id) ?? []) == [land1.id, land2.id]
            }, "both approved photos reach the wall: \(desk.relay.stderr)")
        XCTAssertEqual(wall?.pictures?.map(\.photographer), ["anna", "anna"])
        XCTAssertEqual(wall?.seconds, 2)
        XCTAssertEqual(wall?.credit, true)
        XCTAssertEqual(wall?.logo, true)
        let served = try RawHTTP.get(host: "127.0.0.1", port: port, path: "/wall/logo?token=wall-secret")
        XCTAssertEqual(served.status, 200)
        XCTAssertEqual(served.headers["content-type"], "image/png")
        XCTAssertEqual(served.body, try Data(contentsOf: logo), "the logo as given, served by relay")

        // The editor pins ben's portrait, never approved: the wall names it and serves it upright.
        XCTAssertEqual(try post(port, "/review/pin", ["id": portrait.id, "pinned": true], token: "wall-secret").status, 401)
        XCTAssertEqual(try post(port, "/review/pin", ["id": "0123abcd", "pinned": true]).status, 404)
        let pinned = try post(port, "/review/pin", ["id": portrait.id, "pinned": true])
        XCTAssertEqual(pinned.status, 200)
        XCTAssertEqual(String(decoding: pinned.body, as: UTF8.self), #"{"pinned":"\#(portrait.id)"}"#)
        wall = try get(port, "/wall.json?token=wall-secret", as: Wall.self)
        XCTAssertEqual(wall?.pinned, portrait.id)
        XCTAssertEqual(wall?.pictures?.first?.id, portrait.id)
        XCTAssertEqual(wall?.pictures?.first?.photographer, "ben")
        XCTAssertEqual(try get(port, "/review.json?token=editor-secret", as: Listed.self).pinned, portrait.id)
        let picture = try RawHTTP.get(host: "127.0.0.1", port: port, path: "/wall/photo/\(portrait.id).jpg?token=wall-secret")
        XCTAssertEqual(picture.status, 200)
        let pictureFile = folder.appendingPathComponent("wall-portrait.jpg")
        try picture.body.write(to: pictureFile)
        let probed = try CameraJPEG.probe(pictureFile)
        XCTAssertEqual([probed.width, probed.height], [1200, 1600], "the picture stands upright: taller than wide")

        try screenshotThePinnedPortrait(port, portrait: portrait.id)
        try watchThePinHoldThenTheWallTurn(port, portrait: portrait.id, newest: [land1.id, land2.id])
        XCTAssertNil(try get(port, "/wall.json?token=wall-secret", as: Wall.self).pinned, "unpinned")
        XCTAssertEqual(desk.relay.stop(signal: SIGTERM, timeout: 30), 0, desk.relay.stderr)
    }

    /// The wall on a 1280×720 screen: the portrait whole in the middle with black beside it,
    /// the credit and the logo in the DOM, the screenshot kept to be looked at.
    private func screenshotThePinnedPortrait(_ port: Int, portrait: String) throws {
        let shot = URL(fileURLWithPath: "/tmp/relay-status-shots/venue-wall-portrait.png")
        let page = try HeadlessChromium.screenshot("http://127.0.0.1:\(port)/wall?token=wall-secret", to: shot, size: (1280, 720))
        XCTAssertEqual(page.status, 0, page.stderr)
        XCTAssertTrue(page.stdout.contains("Photo: ben"), page.stdout)
        XCTAssertTrue(page.stdout.contains("wall/logo"), page.stdout)
        XCTAssertTrue(page.stdout.contains("wall/photo/\(portrait).jpg"), page.stdout)
        // A 1200×1600 picture fitted to 720 px high is 540 px wide: black from 0 to 370 and
        // from 910 on, the photo between (the logo is top left, the QR code bottom right). The
        // photo's marker, red in the top-left corner of its stored pixels, is top right once it
        // stands upright (orientation 6 turns it a quarter clockwise).
        let probe = """
            import json, sys
            from PIL import Image
            image = Image.open(sys.argv[1]).convert("RGB")
            print(json.dumps([image.size, image.getpixel((880, 30)), [sum(image.getpixel((x, 360))) for x in (150, 360, 380, 640, 900, 920, 1130)]]))
            """
        let result = try Subprocess.run(try XCTUnwrap(Subprocess.which("python3")), ["-c", probe, shot.path], timeout: 60)
        let read = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [Any], result.stderr)
        XCTAssertEqual(read.first as? [Int], [1280, 720])
        let marker = try XCTUnwrap(read[1] as? [Int])
        XCTAssertTrue(marker[0] > 180 && marker[1] < 90 && marker[2] < 90, "red top right: \(marker)")
        let row = try XCTUnwrap(read.last as? [Int])
        XCTAssertEqual([row[0], row[1], row[5], row[6]], [0, 0, 0, 0], "black beside the photo: \(row)")
        XCTAssertTrue([row[2], row[3], row[4]].allSatisfy { $0 > 0 }, "the photo across its width: \(row)")
        print("venue wall screenshot: \(shot.path)")
    }

    /// In Chromium, through its DevTools protocol (scripts/chromium_keys.py, on its landscape
    /// window): the page records each picture it shows with its layout; the portrait is shown
    /// whole (`object-fit: contain`) with the credit over its bottom-left corner and the logo
    /// top left; 3 s later (more than the 2 s pace) the page unpins it itself, as the editor
    /// would, and the wall turns: the newest live photo, then every 2 s the next. Each key
    /// pressed (none is bound) gives the page up to 5 s more.
    private func watchThePinHoldThenTheWallTurn(_ port: Int, portrait: String, newest: [String]) throws {
        let record = """
            (() => {
              const w = window, image = document.querySelector('.slide.shown');
              if (!image || !image.complete || !image.naturalWidth) return null;
              const id = image.src.split('/wall/photo/')[1].split('.jpg')[0];
              const credit = document.getElementById('credit'), logo = document.getElementById('logo');
              const log = w.__log = w.__log || [], now = Math.round(performance.now());
              if (w.__last !== id) {
                if (id === '\(portrait)' && (credit.hidden || !logo.complete || !logo.naturalWidth)) return null;
                const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
                log.push({id, t: now, vw: innerWidth, vh: innerHeight, fit: getComputedStyle(image).objectFit,
                  nw: image.naturalWidth, nh: image.naturalHeight, box: box(image), credit: box(credit),
                  text: credit.hidden ? '' : credit.textContent, logo: box(logo)});
                w.__last = id;
              }
              if (log[0].id === '\(portrait)' && !w.__unpinned && now - log[0].t >= 3000) {
                w.__unpinned = true;
                fetch('/review/pin', {method: 'POST', headers: {Authorization: 'Bearer editor-secret'},
                  body: JSON.stringify({id: '\(portrait)', pinned: false})});
                log.push({id: 'unpinned', t: now});
              }
              return JSON.stringify(log);
            })()
            """
        let result = try Subprocess.run(
            try XCTUnwrap(Subprocess.which("python3")),
            [
                TestPaths.repositoryRoot.appendingPathComponent("scripts/chromium_keys.py").path,
                "http://127.0.0.1:\(port)/wall?token=wall-secret", record, "x", "x", "x", "x",
            ], timeout: 120)
        XCTAssertEqual(result.status, 0, result.stderr)
        let last = try XCTUnwrap(
            result.stdout.split(separator: "\n").last.flatMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["value"] as? String
            }, result.stdout)
        let log = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [[String: Any]], last)
        let ids = log.compactMap { $0["id"] as? String }
        XCTAssertEqual(ids.count, 5, result.stdout)
        guard ids.count == 5 else { return }
        XCTAssertEqual(Array(ids[0...1]), [portrait, "unpinned"], "nothing else while pinned: \(ids)")
        XCTAssertEqual(Set(ids[2...3]), Set(newest), "then the live photos in turn: \(ids)")
        XCTAssertEqual(ids[4], ids[2], "and round again: \(ids)")

        // The portrait, fitted whole on the landscape window, the credit over its corner.
        let shown = log[0]
        let (vw, vh) = try (XCTUnwrap(shown["vw"] as? Double), XCTUnwrap(shown["vh"] as? Double))
        let (nw, nh) = try (XCTUnwrap(shown["nw"] as? Double), XCTUnwrap(shown["nh"] as? Double))
        XCTAssertGreaterThan(vw, vh, "a landscape screen")
        XCTAssertGreaterThan(nh, nw, "a portrait picture")
        XCTAssertEqual(shown["fit"] as? String, "contain")
        XCTAssertEqual(shown["box"] as? [Double], [0, 0, vw, vh], "the picture's box is the screen")
        let scale = min(vw / nw, vh / nh)
        let photo = (left: (vw - nw * scale) / 2, top: (vh - nh * scale) / 2, right: (vw + nw * scale) / 2, bottom: (vh + nh * scale) / 2)
        XCTAssertTrue(photo.left >= 0 && photo.top >= 0 && photo.right <= vw && photo.bottom <= vh, "whole, nothing cropped")
        XCTAssertEqual(photo.bottom - photo.top, vh, accuracy: 1, "as tall as the screen")
        XCTAssertEqual(shown["text"] as? String, "Photo: ben")
        let credit = try XCTUnwrap(shown["credit"] as? [Double])
        XCTAssertTrue(
            credit[0] >= photo.left && credit[0] < photo.left + 0.05 * vw && credit[2] <= photo.right + 0.5
                && credit[3] <= photo.bottom + 0.5 && credit[3] > photo.bottom - 0.05 * vh,
            "over the photo's bottom-left corner: \(credit), photo \(photo)")
        let logo = try XCTUnwrap(shown["logo"] as? [Double])
        let vmin = min(vw, vh) / 100
        XCTAssertTrue(logo[0] < 3 * vmin && logo[1] < 3 * vmin, "top left: \(logo)")
        XCTAssertTrue(logo[2] - logo[0] <= 14 * vmin + 0.5 && logo[3] - logo[1] <= 14 * vmin + 0.5, "within 14vmin: \(logo)")

        // Pinned, it held the wall past the pace; unpinned, the wall turns every 2 s.
        let times = log.compactMap { $0["t"] as? Double }
        XCTAssertGreaterThanOrEqual(times[1] - times[0], 3000)
        for turn in 3...4 {
            XCTAssertEqual((times[turn] - times[turn - 1]) / 1000, 2, accuracy: 0.6, "the pace asked, turn \(turn - 2)")
        }
    }

    /// The wall's options are checked before the run starts: each mistake a usage error (2)
    /// naming what is wrong.
    func testTheWallsOptionsAreCheckedAtStart() throws {
        let harness = try RelayHarness()
        XCTAssertEqual(try harness.relay("config", "add", "--url", "http://127.0.0.1:9/upload").status, 0)
        let folder = harness.root
        let notes = folder.appendingPathComponent("logo.png")
        try Data("a note, not a logo".utf8).write(to: notes)
        let large = folder.appendingPathComponent("large.png")
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 7, count: 2_100_000)).write(to: large)
        let missing = folder.appendingPathComponent("no-such-logo.svg").path
        let port = try XCTUnwrap(ClosedPort.make())
        let status = ["--status", "127.0.0.1:\(port)"]
        let cases: [([String], String)] = [
            (["--wall-seconds", "5"], "--wall-seconds goes with --status"),
            (["--wall-credit"], "--wall-credit goes with --status"),
            (status + ["--wall-logo", missing], "the logo '\(missing)' does not exist"),
            (status + ["--wall-logo", notes.path], "the logo '\(notes.path)' is not a PNG, JPEG, WebP or SVG picture"),
            (status + ["--wall-logo", large.path], "a logo may be 2 MB at most"),
            (status + ["--wall-logo", folder.path], "is not a file"),
            (status + ["--wall-seconds", "1"], "--wall-seconds '1' must be a whole number from 2 to 3600"),
            (status + ["--wall-seconds", "fast"], "--wall-seconds 'fast' must be a whole number from 2 to 3600"),
        ]
        for (arguments, expected) in cases {
            let result = try harness.relay(["run", "--folder", harness.dropFolder.path] + arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(expected), "\(arguments): \(result.stderr)")
        }
        let help = try harness.relay("run", "--help")
        for option in ["--wall-credit", "--wall-logo FILE", "--wall-seconds N"] {
            XCTAssertTrue(help.stdout.contains(option), "\(option) in relay run --help:\n\(help.stdout)")
        }
    }
}
