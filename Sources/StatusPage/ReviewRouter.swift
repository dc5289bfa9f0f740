import Foundation
import RelayCore
import Rendition
import RunEvents

/// The editor's page and its API, under `/review`, for the holder of the editor's token only
/// (the status page's viewers cannot decide): the page, the held photos newest first in pages
/// (`/review.json?offset=&limit=&since=VERSION`, which answers `unchanged` while nothing
/// changed, so phones can ask every second), their thumbnails, the loupe's pictures
/// (``LoupePictures``), and decisions by POST (`/review/decide`, a JSON body
/// `{"ids": [...], "decision": "approve|reject|undo"}`). Nothing changes on a GET; every error is
/// a JSON object with an `error` sentence.
struct ReviewRouter: Sendable {
    /// The editor's token (`RELAY_EDITOR_TOKEN`, or made up for the run).
    let token: String
    /// The photo pinned to the venue wall (`POST /review/pin`, ``WallPinRoute``), if any.
    var pinned: String? = nil
    /// Most photos one page of `/review.json` gives.
    static let pageLimit = 200
    /// Largest decision body taken.
    static let bodyLimit = 256 * 1024

    /// The paths that change something, each by POST only.
    static let posts: Set<String> = ["/review/decide", "/review/caption"]

    static func handles(_ path: String) -> Bool {
        path == "/review" || path == "/review.json" || path.hasPrefix("/review/")
    }

    func respond(
        to request: StatusRequest, desk: ReviewDesk?, thumbnails: ReviewThumbnails?, loupe: LoupePictures? = nil
    ) -> StatusResponse {
        guard request.isAuthorized(by: token) else {
            return .json(401, ["error": "the editor's page needs the editor's token: open it with ?token=… (RELAY_EDITOR_TOKEN)"])
        }
        if Self.posts.contains(request.path) {
            guard request.method == "POST" else {
                return .json(405, ["error": "decisions are sent with POST"], headers: ["Allow": "POST"])
            }
        } else if request.method != "GET" && request.method != "HEAD" {
            return .json(405, ["error": "use GET here; decisions go to POST /review/decide"], headers: ["Allow": "GET, HEAD"])
        }
        if request.path == "/review" {
            return StatusResponse(status: 200, contentType: "text/html; charset=utf-8", body: Array(ReviewPageHTML.document.utf8))
        }
        guard let desk else { return .json(503, ["error": "relay is still opening its spool; try again in a moment"]) }
        switch request.path {
        case "/review.json": return list(request, desk: desk)
        case "/review/decide": return decide(request, desk: desk)
        case "/review/caption": return caption(request, desk: desk)
        default:
            if let loupe, let answer = loupe.respond(to: request, desk: desk) { return answer }
            guard let id = SmallJPEG.photoID(in: request.path, under: "/review/thumb/") else {
                return .json(404, ["error": "nothing here"])
            }
            let made: [UInt8]?
            do { made = try desk.file(id).flatMap { file throws(PicturePool.Busy) in try thumbnails?.jpeg(id: id, file: file) } } catch {
                return .busy
            }
            guard let jpeg = made else {
                return .json(404, ["error": "no thumbnail for \(id): it is not in the spool, or cannot be decoded"])
            }
            return StatusResponse(status: 200, contentType: "image/jpeg", body: jpeg, headers: ["Cache-Control": "private, max-age=86400"])
        }
    }

    /// One page of the held photos, newest first.
    private func list(_ request: StatusRequest, desk: ReviewDesk) -> StatusResponse {
        // A pin changes the page too: every editor's page shows which photo is on the wall.
        let version = desk.version() &+ (pinned.map { Int(truncatingIfNeeded: $0.hashValue) } ?? 0)
        if let since = request.arguments["since"].flatMap(Int.init), since == version {
            return .encoded(Page(version: version, unchanged: true))
        }
        let filter: ReviewFilter
        do { filter = try ReviewFilter(arguments: request.arguments) } catch { return .json(400, ["error": error.sentence]) }
        let all = desk.photos()
        let shown = all.filter(filter.matches)
        let offset = max(0, request.arguments["offset"].flatMap(Int.init) ?? 0)
        let limit = min(Self.pageLimit, max(1, request.arguments["limit"].flatMap(Int.init) ?? 60))
        let newestFirst = shown.reversed().dropFirst(offset).prefix(limit)
        var page = Page(version: version, unchanged: false, total: shown.count, offset: offset, photos: Array(newestFirst))
        page.counts = filter.counts(all)
        page.photographers = page.counts?.photographers
        page.pinned = pinned
        return .encoded(page)
    }

    /// The editor's caption and title for one photo (`{"id", "caption", "title"}`), recorded
    /// and synced before the answer, which says where it goes and where it changes nothing.
    private func caption(_ request: StatusRequest, desk: ReviewDesk) -> StatusResponse {
        guard let asked = try? JSONDecoder().decode(CaptionRequest.self, from: Data(request.body)) else {
            return .json(400, ["error": #"send JSON: {"id": "…", "caption": "…", "title": "…"}"#])
        }
        let caption: PhotoCaption
        do { caption = try PhotoCaption(caption: asked.caption ?? "", title: asked.title ?? "") } catch {
            return .json(400, ["error": error.description])
        }
        let outcome: CaptionOutcome?
        do { outcome = try desk.caption(asked.id, caption, "the editor's page") } catch {
            return .json(500, ["error": "the caption could not be saved: \(error)"])
        }
        guard let outcome else {
            return .json(404, ["error": "no photo \(asked.id) in the spool: it was sent, rejected or dropped meanwhile"])
        }
        return .encoded(CaptionAnswer(id: asked.id, caption: caption, outcome: outcome, sentence: outcome.sentence))
    }

    private func decide(_ request: StatusRequest, desk: ReviewDesk) -> StatusResponse {
        guard request.body.count <= Self.bodyLimit else { return .json(413, ["error": "too many photos in one decision"]) }
        guard let asked = try? JSONDecoder().decode(DecisionRequest.self, from: Data(request.body)) else {
            return .json(400, ["error": #"send JSON: {"ids": ["…"], "decision": "approve", "reject" or "undo"}"#])
        }
        guard let kind = ReviewDecision.Kind(rawValue: asked.decision), kind.isVerdict else {
            return .json(400, ["error": "decision '\(asked.decision)' is not approve, reject or undo"])
        }
        guard !asked.ids.isEmpty else { return .json(400, ["error": "name at least one photo in ids"]) }
        let outcomes: [String: ReviewOutcome]
        do { outcomes = try desk.decide(asked.ids, kind, "the editor's page") } catch {
            return .json(500, ["error": "the decision could not be saved: \(error)"])
        }
        let unknown = asked.ids.filter { outcomes[$0] == nil }
        let changed = asked.ids.filter { outcomes[$0]?.changedAnything == true }
        let unchanged = asked.ids.compactMap { id in
            outcomes[id].flatMap { $0.changedAnything ? nil : Unchanged(id: id, reason: Self.reason($0)) }
        }
        var answer = DecisionAnswer(version: desk.version(), recorded: changed, unknown: unknown, unchanged: unchanged)
        guard changed.isEmpty else { return .encoded(answer) }
        if unchanged.isEmpty {
            answer.error =
                "no photo with \(unknown.count == 1 ? "this id" : "these ids") in the spool: it was sent, rejected or dropped "
                + "meanwhile; the list is current again"
            return .encoded(answer, status: 404)
        }
        answer.error = "nothing changed: " + unchanged.map(\.reason).joined(separator: "; ")
        return .encoded(answer, status: 409)
    }

    /// Why a decision changed nothing for a photo still in the spool (another editor decided it
    /// and it was sent, or its rejection is too old to undo).
    private static func reason(_ outcome: ReviewOutcome) -> String {
        if !outcome.alreadySent.isEmpty { return "already sent to \(outcome.alreadySent.joined(separator: ", "))" }
        if !outcome.tooLate.isEmpty { return "rejected too long ago to undo for \(outcome.tooLate.joined(separator: ", "))" }
        return "no destination holds it any more"
    }

    private struct Page: Encodable {
        var version: Int
        var unchanged: Bool
        var total: Int?
        var offset: Int?
        var photos: [ReviewDesk.Photo]?
        /// How many held photos each photographer has (kept for older pages; `counts` has it).
        var photographers: [String: Int]?
        /// Each filter's counts (``ReviewFilter/counts(_:)``).
        var counts: ReviewFilter.Counts?
        /// The photo pinned to the venue wall.
        var pinned: String?
    }

    private struct CaptionRequest: Decodable {
        var id: String
        var caption: String?
        var title: String?
    }

    private struct CaptionAnswer: Encodable {
        var id: String
        var caption: PhotoCaption
        var outcome: CaptionOutcome
        var sentence: String
    }

    private struct DecisionRequest: Decodable {
        var ids: [String]
        var decision: String
    }

    private struct Unchanged: Encodable {
        var id: String
        var reason: String
    }

    private struct DecisionAnswer: Encodable {
        var version: Int
        /// Decisions that changed where the photo goes.
        var recorded: [String]
        /// Ids not in the spool (nothing was recorded for them).
        var unknown: [String]
        /// Recorded, but nothing changed (already sent, too late to undo).
        var unchanged: [Unchanged]
        var error: String?
    }
}

extension StatusResponse {
    /// A JSON object of strings (errors).
    static func json(_ status: Int, _ fields: [String: String], headers: [String: String] = [:]) -> StatusResponse {
        encoded(fields, status: status, headers: headers)
    }

    static func encoded(_ value: some Encodable, status: Int = 200, headers: [String: String] = [:]) -> StatusResponse {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        let body = (try? encoder.encode(value)) ?? Data(#"{"error":"cannot encode the answer"}"#.utf8)
        return StatusResponse(status: status, contentType: "application/json", body: Array(body), headers: headers)
    }
}
