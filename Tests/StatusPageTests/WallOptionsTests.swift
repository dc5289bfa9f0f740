import Foundation
import TestSupport
import Testing

@testable import StatusPage

/// The wall's logo is read and checked at start: a picture by its first bytes (never its name),
/// 2 MB at most, each refusal naming the file; and served under the wall's token only.
@Suite struct WallOptionsTests {
    @Test(
        arguments: [
            ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0], "image/png"),
            ([0xFF, 0xD8, 0xFF, 0xE0, 0], "image/jpeg"),
            (Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8), "image/webp"),
            (Array("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8), "image/svg+xml"),
            ([0xEF, 0xBB, 0xBF] + Array("  <svg viewBox=\"0 0 1 1\"></svg>".utf8), "image/svg+xml"),
        ] as [([UInt8], String)])
    func aLogoIsKnownByItsFirstBytes(bytes: [UInt8], type: String) {
        #expect(WallOptions.Logo.contentType(of: bytes) == type)
    }

    @Test func aWrongLogoIsRefusedNamingIt() throws {
        let folder = try TestPaths.makeTemporaryDirectory("wall-logo")
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = folder.appendingPathComponent("logo.png")
        try Data("GIF89a or a note, not a logo".utf8).write(to: text)
        let large = folder.appendingPathComponent("large.png")
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0, count: 2_000_000)).write(to: large)
        let missing = folder.appendingPathComponent("missing.svg").path
        let cases: [(String, WallOptions.LogoError)] = [
            (missing, .missing(missing)), (text.path, .notAnImage(text.path)), (large.path, .tooLarge(large.path, 2_000_008)),
            (folder.path, .notAFile(folder.path)),
        ]
        for (path, expected) in cases {
            #expect(throws: expected) { try WallOptions.Logo(contentsOf: path) }
            #expect(expected.description.contains(path))
        }
        let png = folder.appendingPathComponent("logo.bin")
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]).write(to: png)
        #expect(try WallOptions.Logo(contentsOf: png.path).contentType == "image/png")
    }

    @Test func theLogoIsServedUnderTheWallsTokenAsAPicture() throws {
        let logo = WallOptions.Logo(bytes: Array("<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8), contentType: "image/svg+xml")
        let router = StatusRouter(token: "viewer", wall: ("wall", nil), wallOptions: WallOptions(logo: logo))
        let snapshot = StatusSnapshot(state: SampleRun.state(), now: SampleRun.now)
        let served = router.respond(to: StatusRequest(method: "GET", path: "/wall/logo", tokenParameter: "wall"), snapshot: { snapshot })
        #expect(served.status == 200)
        #expect(served.contentType == "image/svg+xml")
        #expect(served.body == logo.bytes)
        #expect(served.headers["Content-Security-Policy"]?.contains("sandbox") == true, "an SVG opened alone runs nothing")
        let shown = router.respond(to: StatusRequest(method: "GET", path: "/wall.json", tokenParameter: "wall"), snapshot: { snapshot })
        #expect(String(decoding: shown.body, as: UTF8.self).contains(#""logo":true"#))
        #expect(
            router.respond(to: StatusRequest(method: "GET", path: "/wall/logo", tokenParameter: "viewer"), snapshot: { snapshot }).status
                == 401)
        let none = StatusRouter(token: nil, wall: ("wall", nil))
        #expect(
            none.respond(to: StatusRequest(method: "GET", path: "/wall/logo", tokenParameter: "wall"), snapshot: { snapshot }).status == 404
        )
    }
}
