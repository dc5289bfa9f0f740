import Foundation
import RelayCore
import RunEvents
import Testing

@testable import StatusPage

/// The editor's page's routes, with a desk that records what it is asked: only the editor's
/// token decides, decisions go by POST only, the list pages newest first and says `unchanged`
/// while nothing changed, and every refusal is a JSON sentence.
@Suite struct ReviewRouterTests {
    /// A desk over a list of held photos; decisions remove the photos they name.
    final class Desk: Sendable {
        let state = LockedBox(
            (photos: [ReviewDesk.Photo](), version: 1, decisions: [(ids: [String], kind: ReviewDecision.Kind, by: String)]()))

        init(count: Int) {
            state.withLockedValue { state in
                state.photos = (1...count).map {
                    ReviewDesk.Photo(
                        id: String(format: "%032x", $0), name: "IMG_\($0).JPG", source: "test", capturedAt: Date(timeIntervalSince1970: 0),
                        heldFor: ["gallery"])
                }
            }
        }

        var desk: ReviewDesk {
            ReviewDesk(
                photos: { self.state.withLockedValue(\.photos) }, version: { self.state.withLockedValue(\.version) },
                decide: { ids, kind, by in
                    self.state.withLockedValue { state in
                        state.decisions.append((ids, kind, by))
                        let known = Set(ids.filter { id in state.photos.contains { $0.id == id } })
                        state.photos.removeAll { known.contains($0.id) }
                        state.version += 1
                        var outcomes = Dictionary(uniqueKeysWithValues: known.map { ($0, ReviewOutcome(released: ["gallery"])) })
                        // "sent": in the spool still (the backup has not got it), but sent to the gallery.
                        if ids.contains("5e47") { outcomes["5e47"] = ReviewOutcome(alreadySent: ["gallery"]) }
                        return outcomes
                    }
                }, file: { _ in nil })
        }
    }

    let router = StatusRouter(token: "viewer", editorToken: "editor")
    let snapshot = StatusSnapshot(state: SampleRun.state(), now: SampleRun.now)

    func respond(_ request: StatusRequest, _ desk: Desk) -> StatusResponse {
        router.respond(to: request, snapshot: { snapshot }, desk: desk.desk)
    }

    func json(_ response: StatusResponse) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    func decide(_ ids: [String], _ decision: String, token: String = "editor") -> StatusRequest {
        StatusRequest(
            method: "POST", path: "/review/decide", authorization: "Bearer \(token)",
            body: Array(try! JSONSerialization.data(withJSONObject: ["ids": ids, "decision": decision])))
    }

    @Test func onlyTheEditorsTokenOpensThePageAndItOpensTheStatusPageToo() throws {
        let desk = Desk(count: 3)
        for path in ["/review", "/review.json", "/review/thumb/00.jpg"] {
            #expect(respond(StatusRequest(method: "GET", path: path), desk).status == 401)
            #expect(
                respond(StatusRequest(method: "GET", path: path, tokenParameter: "viewer"), desk).status == 401, "a viewer cannot decide")
        }
        #expect(respond(decide([String(format: "%032x", 1)], "approve", token: "viewer"), desk).status == 401)
        #expect(desk.state.withLockedValue(\.decisions).isEmpty)
        let page = respond(StatusRequest(method: "GET", path: "/review", tokenParameter: "editor"), desk)
        #expect(page.status == 200)
        #expect(!String(decoding: page.body, as: UTF8.self).contains("innerHTML"), "names are set as text, never parsed")
        #expect(respond(StatusRequest(method: "GET", path: "/status.json", authorization: "Bearer editor"), desk).status == 200)
        #expect(
            StatusRouter(token: "viewer").respond(to: StatusRequest(method: "GET", path: "/review"), snapshot: { snapshot }).status == 401)
    }

    @Test func theListPagesNewestFirstAndSaysUnchangedWhileNothingChanged() throws {
        let desk = Desk(count: 5)
        let first = try json(
            respond(StatusRequest(method: "GET", path: "/review.json", tokenParameter: "editor", arguments: ["limit": "2"]), desk))
        #expect(first["total"] as? Int == 5)
        #expect((first["photos"] as? [[String: Any]])?.map { $0["name"] as? String } == ["IMG_5.JPG", "IMG_4.JPG"])
        let next = try json(
            respond(
                StatusRequest(method: "GET", path: "/review.json", tokenParameter: "editor", arguments: ["offset": "4", "limit": "2"]), desk
            ))
        #expect((next["photos"] as? [[String: Any]])?.map { $0["name"] as? String } == ["IMG_1.JPG"])
        let version = try #require(first["version"] as? Int)
        let same = try json(
            respond(StatusRequest(method: "GET", path: "/review.json", tokenParameter: "editor", arguments: ["since": "\(version)"]), desk))
        #expect(same["unchanged"] as? Bool == true)
        #expect(same["photos"] == nil)
    }

    @Test func decisionsGoByPostAndUnknownOrBadOnesGetAJSONError() throws {
        let desk = Desk(count: 3)
        let id = String(format: "%032x", 2)
        #expect(respond(StatusRequest(method: "GET", path: "/review/decide", tokenParameter: "editor"), desk).status == 405)
        #expect(respond(StatusRequest(method: "POST", path: "/review.json", tokenParameter: "editor"), desk).status == 405)
        let approved = respond(decide([id, "ffff"], "approve"), desk)
        #expect(approved.status == 200)
        #expect(try json(approved)["recorded"] as? [String] == [id])
        #expect(try json(approved)["unknown"] as? [String] == ["ffff"])
        #expect(desk.state.withLockedValue(\.decisions).map(\.by) == ["the editor's page"])
        let stale = respond(decide([id], "reject"), desk)
        #expect(stale.status == 404, "decided already by another editor: gone from the list")
        #expect((try json(stale)["error"] as? String)?.contains("no photo with this id in the spool") == true)
        let sent = respond(decide(["5e47"], "reject"), desk)
        #expect(sent.status == 409, "recorded, but too late: the gallery has it")
        #expect((try json(sent)["error"] as? String) == "nothing changed: already sent to gallery")
        #expect(respond(decide([id], "bless"), desk).status == 400)
        #expect(respond(decide([], "approve"), desk).status == 400)
        let garbage = respond(StatusRequest(method: "POST", path: "/review/decide", tokenParameter: "editor", body: Array("{".utf8)), desk)
        #expect(garbage.status == 400)
        #expect(garbage.contentType == "application/json")
        let huge = StatusRequest(
            method: "POST", path: "/review/decide", tokenParameter: "editor", body: Array(repeating: 32, count: 300_000))
        #expect(respond(huge, desk).status == 413)
    }

    @Test func thumbnailsAreNamedByHexIdsOnly() {
        #expect(SmallJPEG.photoID(in: "/review/thumb/0a1b.jpg", under: "/review/thumb/") == "0a1b")
        #expect(SmallJPEG.photoID(in: "/review/thumb/../../etc/passwd.jpg", under: "/review/thumb/") == nil)
        #expect(SmallJPEG.photoID(in: "/review/thumb/.jpg", under: "/review/thumb/") == nil)
        let desk = Desk(count: 1)
        let missing = respond(StatusRequest(method: "GET", path: "/review/thumb/0a1b.jpg", tokenParameter: "editor"), desk)
        #expect(missing.status == 404)
        #expect(missing.contentType == "application/json")
    }

    @Test func beforeTheRunOpensItsSpoolThePageSaysWait() throws {
        let answer = router.respond(
            to: StatusRequest(method: "GET", path: "/review.json", tokenParameter: "editor"), snapshot: { snapshot })
        #expect(answer.status == 503)
    }

    /// Issue 50: the filter in the address, each facet counted with the other parts applied, a
    /// bad value refused with a sentence.
    @Test func filtersKeepTheirPhotosAndCountEachChoice() throws {
        let desk = Desk(count: 6)
        desk.state.withLockedValue { state in
            for index in state.photos.indices {
                state.photos[index].photographer = index < 4 ? "anna" : "ben"
                state.photos[index].camera = index % 2 == 0 ? "R5" : "Z9"
                state.photos[index].rating = index
                state.photos[index].state = index == 5 ? .rejected : .undecided
            }
        }
        func list(_ query: String) throws -> [String: Any] {
            try json(
                respond(
                    StatusRequest(method: "GET", path: "/review.json", authorization: "Bearer editor", arguments: arguments(query)), desk))
        }
        let anna = try list("photographer=anna&camera=R5")
        #expect((anna["photos"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["IMG_3.JPG", "IMG_1.JPG"])
        let counts = try #require(anna["counts"] as? [String: Any])
        #expect(counts["photographers"] as? [String: Int] == ["anna": 2, "ben": 1], "R5's, by photographer")
        #expect(counts["cameras"] as? [String: Int] == ["R5": 2, "Z9": 2], "anna's, by camera")
        #expect(counts["states"] as? [String: Int] == ["undecided": 2])
        #expect((try list("stars=3"))["total"] as? Int == 2, "three stars or more, undecided")
        #expect((try list("state=rejected"))["total"] as? Int == 1)
        let bad = respond(
            StatusRequest(method: "GET", path: "/review.json", authorization: "Bearer editor", arguments: arguments("state=maybe")), desk)
        #expect(bad.status == 400)
        #expect((try json(bad))["error"] as? String == "state is undecided, approved, rejected, not 'maybe'")
    }

    private func arguments(_ query: String) -> [String: String] {
        Dictionary(
            uniqueKeysWithValues: query.split(separator: "&").map { pair in
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                return (parts[0], parts.count > 1 ? parts[1] : "")
            })
    }
}
