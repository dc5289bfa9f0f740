import Foundation

/// The venue wall, under `/wall`, for the holder of the wall's token only, which opens nothing
/// else (a guest who scans the wall's address sees the wall): the page, the pictures to show
/// newest first (`/wall.json?since=VERSION`, `unchanged` while nothing changed), each picture,
/// and the QR code of the guests' link as SVG. Read-only: GET and HEAD.
struct WallRouter: Sendable {
    let token: String
    /// The guests' gallery link the wall shows as a QR code, if given.
    let guestLink: String?

    static func handles(_ path: String) -> Bool {
        path == "/wall" || path == "/wall.json" || path.hasPrefix("/wall/")
    }

    func respond(to request: StatusRequest, wall: WallStore?) -> StatusResponse {
        guard request.tokenParameter.map({ StatusRouter.sameSecret($0, token) }) ?? false else {
            return .text(401, "the wall needs its token: open the address relay printed for the wall")
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return .text(405, "the wall is read-only: use GET", headers: ["Allow": "GET, HEAD"])
        }
        switch request.path {
        case "/wall":
            return StatusResponse(status: 200, contentType: "text/html; charset=utf-8", body: Array(WallPageHTML.document.utf8))
        case "/wall/qr.svg":
            guard let guestLink, let code = QRCode(encoding: guestLink) else { return .text(404, "no guests' link was given") }
            return StatusResponse(status: 200, contentType: "image/svg+xml", body: Array(code.svg.utf8))
        case "/wall.json":
            let shown = wall?.shown ?? (version: 0, pictures: [])
            if let since = request.arguments["since"].flatMap(Int.init), since == shown.version {
                return .encoded(Shown(version: shown.version, unchanged: true))
            }
            return .encoded(
                Shown(
                    version: shown.version, unchanged: false, guestLink: guestLink,
                    pictures: shown.pictures.map { Shown.Picture(id: $0.id, name: $0.name) }))
        default:
            guard let id = SmallJPEG.photoID(in: request.path, under: "/wall/photo/"),
                let picture = wall?.shown.pictures.first(where: { $0.id == id })
            else {
                return .text(404, "no such picture on the wall")
            }
            return StatusResponse(
                status: 200, contentType: "image/jpeg", body: picture.jpeg, headers: ["Cache-Control": "private, max-age=86400"])
        }
    }

    private struct Shown: Encodable {
        struct Picture: Encodable {
            var id: String
            var name: String
        }

        var version: Int
        var unchanged: Bool
        var guestLink: String?
        var pictures: [Picture]?
    }
}
