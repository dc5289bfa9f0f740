import Foundation
import RelayCore
import RunEvents

/// One HTTP request as the router sees it: what MHD parsed, nothing more.
public struct StatusRequest: Sendable, Equatable {
    public var method: String
    /// The path without the query (`/status.json`).
    public var path: String
    /// The `token` query parameter, decoded.
    public var tokenParameter: String?
    /// The `Authorization` header.
    public var authorization: String?
    /// The other query parameters the routes read (`offset`, `limit`, `since`), decoded.
    public var arguments: [String: String]
    /// The request's body (a decision's JSON), empty for a GET.
    public var body: [UInt8]

    public init(
        method: String, path: String, tokenParameter: String? = nil, authorization: String? = nil, arguments: [String: String] = [:],
        body: [UInt8] = []
    ) {
        self.method = method
        self.path = path
        self.tokenParameter = tokenParameter
        self.authorization = authorization
        self.arguments = arguments
        self.body = body
    }

    /// Whether the request carries `token`, as `?token=` or `Authorization: Bearer`.
    func isAuthorized(by token: String) -> Bool {
        if let given = tokenParameter, StatusRouter.sameSecret(given, token) { return true }
        if let header = authorization, header.hasPrefix("Bearer "),
            StatusRouter.sameSecret(String(header.dropFirst("Bearer ".count)), token)
        {
            return true
        }
        return false
    }
}

/// What the server sends back.
public struct StatusResponse: Sendable, Equatable {
    public var status: Int
    public var contentType: String
    public var body: [UInt8]
    /// Headers beyond Content-Type and Cache-Control.
    public var headers: [String: String]

    public init(status: Int, contentType: String, body: [UInt8], headers: [String: String] = [:]) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.headers = headers
    }

    static func text(_ status: Int, _ text: String, headers: [String: String] = [:]) -> StatusResponse {
        StatusResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array((text + "\n").utf8), headers: headers)
    }
}

/// What a response is made from: the run's state at one moment and the thumbnails made so far.
public struct StatusSnapshot: Sendable {
    public var state: RunState
    public var now: Date
    /// Small JPEGs by photo id.
    public var thumbnails: [String: [UInt8]]

    public init(state: RunState, now: Date, thumbnails: [String: [UInt8]] = [:]) {
        self.state = state
        self.now = now
        self.thumbnails = thumbnails
    }
}

/// Maps a request to its response: the page, its data, the metrics, the health check and the
/// thumbnails, read-only, so only GET and HEAD; with a token, everything but `/healthz` needs it
/// (a supervisor's health probe has no secret to send). The editor's page under `/review` is
/// ``ReviewRouter``'s, for the editor's token only; that token opens the status page too.
public struct StatusRouter: Sendable {
    /// The access token (`RELAY_STATUS_TOKEN`), if one is required.
    public let token: String?
    /// The editor's token; nil: no editor's page.
    public let editorToken: String?
    /// The venue wall's token and the guests' link it shows; nil: no wall.
    public let wall: (token: String, guestLink: String?)?
    /// How the wall shows its photos.
    public let wallOptions: WallOptions

    public init(
        token: String?, editorToken: String? = nil, wall: (token: String, guestLink: String?)? = nil,
        wallOptions: WallOptions = WallOptions()
    ) {
        self.token = token
        self.editorToken = editorToken
        self.wall = wall
        self.wallOptions = wallOptions
    }

    public static let metricsContentType = "text/plain; version=0.0.4; charset=utf-8"

    public func respond(
        to request: StatusRequest, snapshot: () -> StatusSnapshot, desk: ReviewDesk? = nil, reviewThumbnails: ReviewThumbnails? = nil,
        wallStore: WallStore? = nil, loupe: LoupePictures? = nil
    ) -> StatusResponse {
        if let editorToken, request.path == WallPinRoute.path {
            return WallPinRoute(token: editorToken, servesWall: wall != nil).respond(to: request, desk: desk, wall: wallStore)
        }
        if let editorToken, ReviewRouter.handles(request.path) {
            return ReviewRouter(token: editorToken, pinned: wallStore?.pinnedID).respond(
                to: request, desk: desk, thumbnails: reviewThumbnails, loupe: loupe)
        }
        if let wall, WallRouter.handles(request.path) {
            return WallRouter(token: wall.token, guestLink: wall.guestLink, options: wallOptions).respond(to: request, wall: wallStore)
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return .text(405, "the status page is read-only: use GET", headers: ["Allow": "GET, HEAD"])
        }
        if request.path == "/healthz" {
            let health = RunHealth(snapshot().state)
            return .text(health.isHealthy ? 200 : 503, health.text)
        }
        guard isAuthorized(request) else {
            return .text(
                401, "this relay's status page needs its token: open it with ?token=… (the value of RELAY_STATUS_TOKEN)",
                headers: ["WWW-Authenticate": "Bearer realm=\"relay\""])
        }
        switch request.path {
        case "/", "/index.html":
            return StatusResponse(status: 200, contentType: "text/html; charset=utf-8", body: Array(StatusPageHTML.document.utf8))
        case "/status.json":
            let snapshot = snapshot()
            return StatusResponse(
                status: 200, contentType: "application/json",
                body: StatusJSON.encode(snapshot.state, now: snapshot.now, thumbnails: Set(snapshot.thumbnails.keys)))
        case "/metrics":
            let snapshot = snapshot()
            return StatusResponse(
                status: 200, contentType: Self.metricsContentType,
                body: Array(MetricsText.format(snapshot.state, now: snapshot.now).utf8))
        default:
            if let id = SmallJPEG.photoID(in: request.path, under: "/thumb/"), let jpeg = snapshot().thumbnails[id] {
                return StatusResponse(status: 200, contentType: "image/jpeg", body: jpeg)
            }
            return .text(404, "nothing here: the status page is at /, its data at /status.json, metrics at /metrics")
        }
    }

    private func isAuthorized(_ request: StatusRequest) -> Bool {
        guard let token else { return true }
        return request.isAuthorized(by: token) || (editorToken.map(request.isAuthorized(by:)) ?? false)
    }

    /// Compares in time that depends on the lengths only, never on where the first difference is.
    static func sameSecret(_ given: String, _ expected: String) -> Bool {
        SecretComparison.matches(given, expected)
    }
}
