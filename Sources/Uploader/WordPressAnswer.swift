import Foundation
import RelayCore

/// What WordPress's REST API answers, read: an attachment, a post's content, and its refusals
/// turned into what the user can fix. Pure, so every refusal's wording is tested without a site.
public enum WordPressAnswer {
    /// An attachment as `/wp/v2/media` gives it.
    public struct Attachment: Decodable, Sendable, Equatable {
        public var id: Int
        public var sourceURL: String
        /// WordPress's large size, when it made one (`--no-image-sizes` sites and small photos have none).
        public var largeURL: String?

        enum CodingKeys: String, CodingKey {
            case id
            case sourceURL = "source_url"
            case details = "media_details"
        }

        private struct Details: Decodable {
            struct Size: Decodable { var source_url: String }
            var sizes: [String: Size]?
        }

        public init(id: Int, sourceURL: String, largeURL: String? = nil) {
            self.id = id
            self.sourceURL = sourceURL
            self.largeURL = largeURL
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(Int.self, forKey: .id)
            sourceURL = try container.decode(String.self, forKey: .sourceURL)
            // `media_details` is an object, or an empty list when WordPress has none.
            let details = try? container.decodeIfPresent(Details.self, forKey: .details)
            largeURL = details?.sizes?["large"]?.source_url
        }
    }

    /// WordPress's error body: `{"code": "rest_cannot_create", "message": "…", "data": {"status": 401}}`.
    struct Failure: Decodable {
        var code: String
        var message: String?
    }

    /// The error code and message of an answer's JSON body, if it is one.
    static func failure(_ body: [UInt8]) -> (code: String, message: String)? {
        guard let failure = try? JSONDecoder().decode(Failure.self, from: Data(body)) else { return nil }
        return (failure.code, failure.message ?? "")
    }

    /// The raw content of a post read with `context=edit`.
    static func rawContent(_ body: [UInt8]) -> String? {
        struct Post: Decodable {
            struct Content: Decodable { var raw: String }
            var content: Content
        }
        return (try? JSONDecoder().decode(Post.self, from: Data(body)))?.content.raw
    }

    /// A refusal a user can fix, in their words, or nil to leave the answer to the delivery rules.
    /// `user` is the config's user, `bytes` the size of the photo sent, `post` the live post.
    public static func refusal(status: Int, body: [UInt8], user: String, bytes: Int64, post: String?) -> String? {
        let (code, message) = failure(body) ?? ("", "")
        let size = ByteCountText.format(bytes)
        switch (status, code) {
        case (401, _):
            return "WordPress did not accept the Application Password of user '\(user)' (HTTP 401 \(code)): make one under "
                + "Users → Profile → Application Passwords, put it in the environment variable the config's password names, "
                + "then relay retry"
        case (403, "rest_cannot_edit"):
            return "user '\(user)' may not add photos to \(post ?? "that post") (HTTP 403): give the user the Editor role, "
                + "or name a post of theirs, then relay retry"
        case (403, "rest_cannot_create"), (403, "rest_forbidden"):
            return "user '\(user)' may not upload media (HTTP 403 \(code)): give the user the Author role or above, then relay retry"
        case (413, _):
            return "the site refused a \(size) photo as too large (HTTP 413): raise the web server's limit on a request "
                + "(nginx client_max_body_size, Apache LimitRequestBody) above \(size), then relay retry"
        case (500, "rest_upload_unknown_error") where message.contains("upload_max_filesize"),
            (400, "rest_upload_file_too_big"), (400, "rest_upload_no_content_disposition"):
            return "the site's PHP refused a \(size) photo (\(code): \(message)): raise upload_max_filesize and post_max_size "
                + "in its php.ini to at least \((bytes >> 20) + 1)M, then relay retry"
        case (404, "rest_no_route"):
            return "the site's REST API has no media route (HTTP 404 rest_no_route): relay needs WordPress 4.7 or later with "
                + "its REST API on"
        default:
            return nil
        }
    }
}
