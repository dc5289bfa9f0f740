import Foundation

/// The venue wall, under `/wall`, for the holder of the wall's token only, which opens nothing
/// else (a guest who scans the wall's address sees the wall): the page, the pictures to show
/// newest first (`/wall.json?since=VERSION`, `unchanged` while nothing changed), each picture,
/// the event's logo, and the QR code of the guests' link as SVG. Read-only: GET and HEAD.
struct WallRouter: Sendable {
    let token: String
    /// The guests' gallery link the wall shows as a QR code, if given.
    let guestLink: String?
    /// Credit, logo and pace, as the run's options ask.
    var options = WallOptions()

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
        case "/wall/logo":
            guard let logo = options.logo else { return .text(404, "no logo was given (--wall-logo FILE)") }
            // An SVG opened on its own runs no script and loads nothing: it is a picture.
            return StatusResponse(
                status: 200, contentType: logo.contentType, body: logo.bytes,
                headers: [
                    "Cache-Control": "private, max-age=3600", "X-Content-Type-Options": "nosniff",
                    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; sandbox",
                ])
        case "/wall.json":
            return shown(since: request.arguments["since"].flatMap(Int.init), wall: wall)
        default:
            guard let id = SmallJPEG.photoID(in: request.path, under: "/wall/photo/"), let shown = wall?.shown,
                let picture = shown.pinned?.id == id ? shown.pinned : shown.pictures.first(where: { $0.id == id })
            else {
                return .text(404, "no such picture on the wall")
            }
            return StatusResponse(
                status: 200, contentType: "image/jpeg", body: picture.jpeg, headers: ["Cache-Control": "private, max-age=86400"])
        }
    }

    /// The pictures to show, newest first; the pinned one among them (first when it is not
    /// live), so that the page has its name and credit.
    private func shown(since: Int?, wall: WallStore?) -> StatusResponse {
        let shown = wall?.shown ?? WallStore.Shown(version: 0, pictures: [])
        if let since, since == shown.version {
            return .encoded(Shown(version: shown.version, unchanged: true))
        }
        var pictures = shown.pictures
        if let pinned = shown.pinned, !pictures.contains(where: { $0.id == pinned.id }) { pictures.insert(pinned, at: 0) }
        return .encoded(
            Shown(
                version: shown.version, unchanged: false, guestLink: guestLink,
                pictures: pictures.map { picture in
                    Shown.Picture(
                        id: picture.id, name: picture.name, photographer: options.credit ? picture.photographer : nil,
                        caption: options.credit ? wall?.caption(of: picture.id) : nil)
                },
                pinned: shown.pinned?.id, seconds: options.seconds, credit: options.credit ? true : nil,
                logo: options.logo == nil ? nil : true))
    }

    private struct Shown: Encodable {
        struct Picture: Encodable {
            var id: String
            var name: String
            /// Who shot it, with `--wall-credit` only.
            var photographer: String?
            /// The editor's caption, with `--wall-credit` only.
            var caption: String?
        }

        var version: Int
        var unchanged: Bool
        var guestLink: String?
        var pictures: [Picture]?
        /// The pinned picture's id: the page shows it alone, without turning.
        var pinned: String?
        /// Seconds each picture shows.
        var seconds: Int?
        /// True when the page shows each picture's credit.
        var credit: Bool?
        /// True when the page shows the logo (`wall/logo`).
        var logo: Bool?
    }
}
