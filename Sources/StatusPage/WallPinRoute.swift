import Foundation

/// `POST /review/pin`, for the editor's token: the desk pins a photo to the venue wall (a
/// speech, the cake) and unpins it. A JSON body `{"id": "…", "pinned": true|false}`; the answer
/// `{"pinned": "<id>"|null}` names the photo pinned after. Any photo still in the spool may be
/// pinned, approved or not: the editor chose it. One at a time: a pin replaces the last.
struct WallPinRoute: Sendable {
    static let path = "/review/pin"
    /// The editor's token.
    let token: String
    /// Whether the run serves a wall (it has the wall's token).
    let servesWall: Bool

    func respond(to request: StatusRequest, desk: ReviewDesk?, wall: WallStore?) -> StatusResponse {
        guard request.isAuthorized(by: token) else {
            return .json(401, ["error": "pinning needs the editor's token (RELAY_EDITOR_TOKEN), as Authorization: Bearer …"])
        }
        guard request.method == "POST" else {
            return .json(405, ["error": #"pin with POST and {"id": "…", "pinned": true or false}"#], headers: ["Allow": "POST"])
        }
        guard servesWall, let wall else { return .json(409, ["error": "this run shows no venue wall to pin a photo to"]) }
        guard request.body.count <= ReviewRouter.bodyLimit,
            let asked = try? JSONDecoder().decode(PinRequest.self, from: Data(request.body)),
            !asked.id.isEmpty, asked.id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
        else {
            return .json(400, ["error": #"send JSON: {"id": "<photo id>", "pinned": true or false}"#])
        }
        guard asked.pinned else { return .encoded(Answer(pinned: wall.unpin(id: asked.id))) }
        guard let desk else { return .json(503, ["error": "relay is still opening its spool; try again in a moment"]) }
        guard let url = desk.file(asked.id) else {
            return .json(404, ["error": "no photo \(asked.id) in the spool: it was sent, rejected or dropped meanwhile"])
        }
        let file = open(url.path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return .json(404, ["error": "no photo \(asked.id) in the spool: it has just left it"]) }
        let held = desk.photos().first { $0.id == asked.id }
        let name = held?.name ?? url.lastPathComponent
        let photographer = held?.photographer ?? wall.photographer(of: asked.id)
        guard wall.pin(id: asked.id, name: name, photographer: photographer, file: file) else {
            return .json(422, ["error": "the wall cannot show \(asked.id): relay cannot decode it as a JPEG"])
        }
        return .encoded(Answer(pinned: asked.id))
    }

    private struct PinRequest: Decodable {
        var id: String
        var pinned: Bool
    }

    /// `{"pinned": null}` when nothing is pinned: the key is always there.
    private struct Answer: Encodable {
        var pinned: String?

        func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(pinned, forKey: .pinned)
        }

        private enum CodingKeys: String, CodingKey { case pinned }
    }
}
