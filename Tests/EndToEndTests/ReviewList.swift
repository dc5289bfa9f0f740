import Foundation
import TestSupport

/// `/review.json` as the end-to-end tests read it, with the editor's token `editor-secret`
/// (decoded on its own, not with relay's types).
struct ReviewList: Decodable {
    var version: Int
    var unchanged: Bool
    var total: Int?
    var photos: [Photo]?

    struct Photo: Decodable {
        var id: String
        var name: String
        var caption: String?
        var title: String?
    }

    /// The list the page at `port` gives, with `query` added (`since=3`, `state=approved`).
    static func get(_ port: Int, _ query: String = "") throws -> ReviewList {
        let path = "/review.json?token=editor-secret" + (query.isEmpty ? "" : "&" + query)
        let answer = try RawHTTP.get(host: "127.0.0.1", port: port, path: path)
        guard answer.status == 200 else {
            throw HarnessError.command("GET \(path): HTTP \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
        }
        return try JSONDecoder().decode(ReviewList.self, from: answer.body)
    }
}
