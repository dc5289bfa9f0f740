import Foundation
import RelayCore
import RunEvents
import TestSupport
import Testing

@testable import StatusPage

/// `POST /review/pin` with a real wall store: the editor's token only, a photo of the spool
/// pinned whether approved or not, its picture made upright and named by `wall.json` until it
/// is unpinned, one pin at a time, and a JSON error for each refusal.
@Suite(.serialized) struct WallPinTests {
    let folder: URL
    let snapshot = StatusSnapshot(state: SampleRun.state(), now: SampleRun.now)
    let router = StatusRouter(
        token: "viewer", editorToken: "editor", wall: ("wall", nil), wallOptions: WallOptions(credit: true, seconds: 3))

    init() throws {
        folder = try TestPaths.makeTemporaryDirectory("wall-pin")
    }

    /// A desk holding `photos` (id → file), each shot by anna.
    func desk(_ photos: [String: URL]) -> ReviewDesk {
        ReviewDesk(
            photos: {
                photos.keys.sorted().map {
                    ReviewDesk.Photo(
                        id: $0, name: "IMG_\($0).JPG", source: "test", capturedAt: Date(timeIntervalSince1970: 0), heldFor: ["gallery"],
                        photographer: "anna")
                }
            }, version: { 1 }, decide: { _, _, _ in [:] }, file: { photos[$0] })
    }

    func pin(_ id: String, _ pinned: Bool = true, token: String = "editor") -> StatusRequest {
        StatusRequest(
            method: "POST", path: "/review/pin", authorization: "Bearer \(token)",
            body: Array(try! JSONSerialization.data(withJSONObject: ["id": id, "pinned": pinned])))
    }

    func json(_ response: StatusResponse) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    func photo(_ name: String, _ options: CameraJPEG.Options) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try CameraJPEG.write(to: url, options)
        return url
    }

    @Test func theDeskPinsAPhotoUprightAndUnpinsIt() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let wall = try WallStore()
        defer { wall.stop() }
        let portrait = try photo("portrait.jpg", .init(width: 1200, height: 800, orientation: 6, seed: 3))
        let desk = desk(["0a1b": portrait])
        let respond = { (request: StatusRequest) in router.respond(to: request, snapshot: { snapshot }, desk: desk, wallStore: wall) }
        let wallJSON = StatusRequest(method: "GET", path: "/wall.json", tokenParameter: "wall")

        let pinned = respond(pin("0a1b"))
        #expect(pinned.status == 200)
        #expect(String(decoding: pinned.body, as: UTF8.self) == #"{"pinned":"0a1b"}"#)
        let shown = try json(respond(wallJSON))
        #expect(shown["pinned"] as? String == "0a1b")
        #expect(shown["seconds"] as? Int == 3)
        #expect(shown["credit"] as? Bool == true)
        let pictures = try #require(shown["pictures"] as? [[String: Any]])
        #expect(pictures.map { $0["id"] as? String } == ["0a1b"], "never approved, shown because it is pinned")
        #expect(pictures.first?["photographer"] as? String == "anna")
        let review = try json(respond(StatusRequest(method: "GET", path: "/review.json", tokenParameter: "editor")))
        #expect(review["pinned"] as? String == "0a1b", "the editor's list says which photo is pinned")

        let picture = respond(StatusRequest(method: "GET", path: "/wall/photo/0a1b.jpg", tokenParameter: "wall"))
        #expect(picture.status == 200)
        let file = folder.appendingPathComponent("shown.jpg")
        try Data(picture.body).write(to: file)
        let probed = try CameraJPEG.probe(file)
        #expect(probed.width == 800 && probed.height == 1200, "stored on its side, shown upright: \(probed.width)×\(probed.height)")

        let unpinned = respond(pin("0a1b", false))
        #expect(unpinned.status == 200)
        #expect(String(decoding: unpinned.body, as: UTF8.self) == #"{"pinned":null}"#)
        let after = try json(respond(wallJSON))
        #expect(after["pinned"] == nil)
        #expect((after["pictures"] as? [Any])?.isEmpty == true, "back to the photos that went live: none")
    }

    @Test func aPinReplacesTheLastAndAStaleUnpinLeavesIt() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let wall = try WallStore()
        defer { wall.stop() }
        let desk = desk([
            "0a": try photo("a.jpg", .init(width: 640, height: 480, seed: 4)),
            "0b": try photo("b.jpg", .init(width: 480, height: 640, seed: 5)),
        ])
        let respond = { (request: StatusRequest) in router.respond(to: request, snapshot: { snapshot }, desk: desk, wallStore: wall) }
        #expect(respond(pin("0a")).status == 200)
        #expect(respond(pin("0b")).status == 200)
        #expect(wall.pinnedID == "0b")
        #expect(String(decoding: respond(pin("0a", false)).body, as: UTF8.self) == #"{"pinned":"0b"}"#, "an older pin's unpin")
        #expect(wall.pinnedID == "0b")
        #expect(respond(pin("0b")).status == 200, "pinned again: its picture is there already")
    }

    @Test func refusalsAreJSONSentences() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let wall = try WallStore()
        defer { wall.stop() }
        let notJPEG = folder.appendingPathComponent("notes.jpg")
        try Data("not a photo".utf8).write(to: notJPEG)
        let desk = desk(["0c": notJPEG])
        let respond = { (request: StatusRequest) in router.respond(to: request, snapshot: { snapshot }, desk: desk, wallStore: wall) }
        let cases: [(StatusRequest, Int)] = [
            (pin("0c", token: "viewer"), 401),
            (StatusRequest(method: "GET", path: "/review/pin", tokenParameter: "editor"), 405),
            (StatusRequest(method: "POST", path: "/review/pin", authorization: "Bearer editor", body: Array("{}".utf8)), 400),
            (pin("../x"), 400),
            (pin("ffff"), 404),
            (pin("0c"), 422),
        ]
        for (request, status) in cases {
            let answer = respond(request)
            #expect(answer.status == status, "\(request.method) \(String(decoding: request.body, as: UTF8.self))")
            #expect(try json(answer)["error"] is String)
        }
        #expect(wall.pinnedID == nil)
        let noWall = StatusRouter(token: nil, editorToken: "editor")
        let answer = noWall.respond(to: pin("0c"), snapshot: { snapshot }, desk: desk)
        #expect(answer.status == 409, "no wall to pin to")
    }

    @Test func theCreditAndCaptionGoOnlyWhereAsked() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let wall = try WallStore()
        defer { wall.stop() }
        wall.describe { $0 == "0d" ? "The first dance" : nil }
        let desk = desk(["0d": try photo("d.jpg", .init(width: 640, height: 480, seed: 6))])
        #expect(router.respond(to: pin("0d"), snapshot: { snapshot }, desk: desk, wallStore: wall).status == 200)
        let wallJSON = StatusRequest(method: "GET", path: "/wall.json", tokenParameter: "wall")
        let credited = try json(router.respond(to: wallJSON, snapshot: { snapshot }, wallStore: wall))
        let picture = try #require((credited["pictures"] as? [[String: Any]])?.first)
        #expect(picture["photographer"] as? String == "anna")
        #expect(picture["caption"] as? String == "The first dance")

        let plain = StatusRouter(token: nil, wall: ("wall", nil))
        let uncredited = try json(plain.respond(to: wallJSON, snapshot: { snapshot }, wallStore: wall))
        #expect(uncredited["credit"] == nil)
        #expect(uncredited["seconds"] as? Int == WallOptions.defaultSeconds)
        let bare = try #require((uncredited["pictures"] as? [[String: Any]])?.first)
        #expect(Set(bare.keys) == ["id", "name"], "no credit asked, none sent")
    }
}
