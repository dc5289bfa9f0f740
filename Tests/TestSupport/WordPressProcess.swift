import Foundation

public enum WordPressError: Error, CustomStringConvertible {
    case missing(String)
    case didNotStart(String)
    case answer(String)

    public var description: String {
        switch self {
        case .missing(let what): "\(what) is missing: scripts/install-deps.sh test installs it (wordpress, php-mysql, mariadb-server-core)"
        case .didNotStart(let detail): "WordPress did not start: \(detail)"
        case .answer(let detail): "WordPress answered unexpectedly: \(detail)"
        }
    }
}

/// What `scripts/wordpress_site.py` prints once its site answers.
public struct WordPressSite: Decodable, Sendable {
    /// The site's home, with a trailing slash (`http://127.0.0.1:PORT/` or `…/FOLDER/`).
    public var url: String
    /// The REST API's root as the site's `Link: <…>; rel="https://api.w.org/"` header gives it:
    /// `…/wp-json/` with pretty permalinks, `…/index.php?rest_route=/` with plain ones.
    public var restRoot: String
    public var user: String
    public var userID: Int
    /// WordPress's chunked form, `abcd efgh ijkl mnop qrst uvwx` (WordPress strips the spaces).
    public var appPassword: String
    public var adminPassword: String
    /// A published post to attach photos to.
    public var postID: Int
    public var dir: String
    public var uploads: String
    public var uploadMaxFilesize: String
    public var postMaxSize: String
    public var version: String
    /// The script's own start-up time.
    public var seconds: Double

    enum CodingKeys: String, CodingKey {
        case url, user, dir, uploads, version, seconds
        case restRoot = "rest_root"
        case userID = "user_id"
        case appPassword = "app_password"
        case adminPassword = "admin_password"
        case postID = "post_id"
        case uploadMaxFilesize = "upload_max_filesize"
        case postMaxSize = "post_max_size"
    }
}

/// One attachment as WordPress's REST API lists it (`/wp/v2/media`).
public struct WordPressMedia: Decodable, Sendable {
    public var id: Int
    public var slug: String
    public var sourceURL: String
    public var mimeType: String
    /// The post the attachment is attached to (its parent), if any.
    public var post: Int?

    enum CodingKeys: String, CodingKey {
        case id, slug, post
        case sourceURL = "source_url"
        case mimeType = "mime_type"
    }
}

/// A real, throwaway WordPress on loopback (`scripts/wordpress_site.py`: Debian's WordPress files
/// in a fresh folder, a private MariaDB on a socket, PHP's built-in server with workers), with an
/// administrator, an Application Password and a post. Its REST API is read with `RawHTTP`, which
/// shares no code with relay. The script ends PHP and MariaDB when stopped, and on its own when
/// this test process is gone.
public final class WordPressProcess {
    public enum Permalinks: String, Sendable { case pretty, plain }

    public let process: Subprocess
    public let site: WordPressSite
    public let port: Int

    /// The user and Application Password, for `Authorization: Basic`.
    public var user: String { site.user }
    public var appPassword: String { site.appPassword }
    public var uploads: URL { URL(fileURLWithPath: site.uploads) }

    /// `uploadMax` is PHP's `upload_max_filesize` (e.g. "1M"; `post_max_size` is 1M more);
    /// `maxBody` answers a larger request 413 as a web server's own limit does (nginx's
    /// `client_max_body_size`);
    /// `folder` serves the site from `/FOLDER/`; `imageSizes: false` stores uploads without
    /// WordPress's smaller copies (which take seconds for a big photo).
    public init(
        uploadMax: String = "64M", permalinks: Permalinks = .pretty, folder: String? = nil, imageSizes: Bool = true,
        maxBody: Int = 0, workers: Int = 4, startTimeout: TimeInterval = 90
    ) throws {
        guard let python = Subprocess.which("python3") else { throw WordPressError.missing("python3") }
        guard FileManager.default.fileExists(atPath: "/usr/share/wordpress/wp-settings.php") else {
            throw WordPressError.missing("WordPress (/usr/share/wordpress)")
        }
        let script = TestPaths.repositoryRoot.appendingPathComponent("scripts/wordpress_site.py").path
        var arguments = ["-u", script, "--upload-max", uploadMax, "--permalinks", permalinks.rawValue, "--workers", "\(workers)"]
        if let folder { arguments += ["--folder", folder] }
        if !imageSizes { arguments.append("--no-image-sizes") }
        if maxBody > 0 { arguments += ["--max-body", "\(maxBody)"] }
        process = try Subprocess(python, arguments)
        // The site's one JSON line.
        let line = process.line(after: "{", timeout: startTimeout).map { "{" + $0 }
        guard let line, let site = try? JSONDecoder().decode(WordPressSite.self, from: Data(line.utf8)),
            let port = URLComponents(string: site.url)?.port
        else {
            let running = process.isRunning
            process.stop(timeout: 10)
            throw WordPressError.didNotStart(
                (running ? "no site line within \(Int(startTimeout)) s" : "exited with status \(process.process.terminationStatus)")
                    + "; stdout: \(process.stdout); stderr: \(process.stderr)")
        }
        self.site = site
        self.port = port
    }

    deinit { stop() }

    /// SIGTERM: the script ends PHP and MariaDB and removes its folder (a tenth of a second).
    public func stop() {
        if process.isRunning { process.stop(timeout: 15) }
    }

    /// The request target (path and query) of a REST `route` such as `wp/v2/media` with `query`
    /// items, below the site's REST root, whichever form the root has.
    public func target(_ route: String, query: [String: String] = [:]) -> String {
        var root = site.restRoot
        if let schemeEnd = root.range(of: "://"), let slash = root[schemeEnd.upperBound...].firstIndex(of: "/") {
            root = String(root[slash...])
        }
        var target = root + route
        let items = query.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.escape($0.value))" }
        if !items.isEmpty { target += (target.contains("?") ? "&" : "?") + items.joined(separator: "&") }
        return target
    }

    private static func escape(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~/")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }

    /// `Authorization: Basic` for `user` and `password` (the site's own by default).
    public func authorization(user: String? = nil, password: String? = nil) -> String {
        "Basic " + Data("\(user ?? site.user):\(password ?? site.appPassword)".utf8).base64EncodedString()
    }

    /// One request to the REST API, authenticated with the Application Password unless
    /// `authorization` says otherwise ("" for none).
    public func rest(
        _ method: String, _ route: String, query: [String: String] = [:], headers: [String: String] = [:], body: Data = Data(),
        authorization: String? = nil
    ) throws -> RawHTTP.Response {
        var headers = headers
        let authorization = authorization ?? self.authorization()
        if !authorization.isEmpty { headers["Authorization"] = authorization }
        return try RawHTTP.send(
            host: "127.0.0.1", port: port, method: method, path: target(route, query: query), headers: headers, body: body)
    }

    /// Every attachment in the media library (or those with `slug`), newest first.
    public func media(slug: String? = nil) throws -> [WordPressMedia] {
        var found: [WordPressMedia] = []
        var page = 1
        while true {
            var query = ["per_page": "100", "page": "\(page)", "context": "edit"]
            if let slug { query["slug"] = slug }
            let answer = try rest("GET", "wp/v2/media", query: query)
            guard answer.status == 200 else {
                throw WordPressError.answer("GET media: \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
            }
            let items = try JSONDecoder().decode([WordPressMedia].self, from: answer.body)
            found += items
            let pages = Int(answer.headers["x-wp-totalpages"] ?? "1") ?? 1
            if page >= pages || items.isEmpty { return found }
            page += 1
        }
    }

    /// The raw content (as stored, block markup and all) of post `id` (the site's post by default).
    public func postContent(_ id: Int? = nil) throws -> String {
        let answer = try rest("GET", "wp/v2/posts/\(id ?? site.postID)", query: ["context": "edit", "_fields": "content"])
        guard answer.status == 200,
            let object = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any],
            let content = object["content"] as? [String: Any], let raw = content["raw"] as? String
        else { throw WordPressError.answer("GET post: \(answer.status) \(String(decoding: answer.body, as: UTF8.self))") }
        return raw
    }
}
