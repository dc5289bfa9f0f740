import Foundation
import RunEvents
import Testing

@testable import StatusPage

/// The venue wall's routes: its token only, read-only, pictures named by hex ids, and the
/// guests' link as a QR code when one was given.
@Suite struct WallRouterTests {
    let snapshot = StatusSnapshot(state: SampleRun.state(), now: SampleRun.now)

    func respond(_ router: StatusRouter, _ request: StatusRequest) -> StatusResponse {
        router.respond(to: request, snapshot: { snapshot })
    }

    @Test func theWallsTokenOpensTheWallAndNothingElse() {
        let router = StatusRouter(token: "viewer", editorToken: "editor", wall: ("wall", "https://gallery.example/gala"))
        #expect(respond(router, StatusRequest(method: "GET", path: "/wall", tokenParameter: "wall")).status == 200)
        #expect(respond(router, StatusRequest(method: "GET", path: "/wall.json", tokenParameter: "wall")).status == 200)
        for token in ["viewer", "editor"] {
            #expect(respond(router, StatusRequest(method: "GET", path: "/wall", tokenParameter: token)).status == 401)
        }
        for path in ["/", "/status.json", "/metrics", "/review", "/review.json"] {
            #expect(respond(router, StatusRequest(method: "GET", path: path, tokenParameter: "wall")).status == 401, "\(path)")
        }
        #expect(respond(router, StatusRequest(method: "POST", path: "/wall.json", tokenParameter: "wall")).status == 405)
    }

    @Test func theGuestsLinkIsAnSVGQRCode() {
        let router = StatusRouter(token: nil, wall: ("wall", "https://gallery.example/gala"))
        let code = respond(router, StatusRequest(method: "GET", path: "/wall/qr.svg", tokenParameter: "wall"))
        #expect(code.contentType == "image/svg+xml")
        #expect(String(decoding: code.body, as: UTF8.self).hasPrefix("<svg"))
        let none = StatusRouter(token: nil, wall: ("wall", nil))
        #expect(respond(none, StatusRequest(method: "GET", path: "/wall/qr.svg", tokenParameter: "wall")).status == 404)
        #expect(QRCode(encoding: "https://gallery.example/gala")?.svg.contains("<path") == true)
    }

    @Test func picturesAreNamedByHexIdsOnly() {
        #expect(SmallJPEG.photoID(in: "/wall/photo/0a1b.jpg", under: "/wall/photo/") == "0a1b")
        #expect(SmallJPEG.photoID(in: "/wall/photo/../x.jpg", under: "/wall/photo/") == nil)
        let router = StatusRouter(token: nil, wall: ("wall", nil))
        #expect(respond(router, StatusRequest(method: "GET", path: "/wall/photo/0a1b.jpg", tokenParameter: "wall")).status == 404)
    }
}
