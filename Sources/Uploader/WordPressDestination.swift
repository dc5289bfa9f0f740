import Foundation
import RelayCore

/// A WordPress site's media library, through its REST API and an Application Password:
/// `wps://USER@SITE/[FOLDER/]` (`wp://` for plain http). Relay finds the API itself (the
/// site's `Link: <…>; rel="https://api.w.org/"`, so plain permalinks and sites in a folder
/// work), uploads each photo under its name with the stamp's title, caption and alt text, and
/// with `--post ID` (or `--page ID`) attaches it to that post and puts it first in a gallery in
/// its content (`WordPressGallery`, written by the post's one writer, `WordPressPostWriter`).
///
/// WordPress ignores `Idempotency-Key`, so each upload carries a slug made from the photo's
/// key (`WordPressSite.slug(forKey:)`), and a re-send first asks for that slug (`probe`):
/// found, the photo is delivered (and put in the gallery if it is not yet), never uploaded twice.
public final class WordPressDestination: Destination {
    private let config: RequestConfig
    private let site: WordPressSite
    private let headers: [HTTPHeader]
    private let policy: DeliveryPolicy
    private let client: HTTPUploadClient
    /// The live post (`--post`/`--page`), nil without one.
    private let live: LivePost?
    /// The REST API's root, once the site has announced it.
    private var root: String?
    /// Whether the live post was found.
    private var livePostFound = false

    /// Bytes of an answer kept: the attachment's JSON with its sizes, a post's content.
    static let answerLimit = 8 << 20

    public init(
        config: RequestConfig, environment: [String: String], policy: DeliveryPolicy, cancellation: UploadCancellation
    ) throws(DestinationError) {
        self.config = config
        self.policy = policy
        do {
            site = try WordPressSite(config: config)
            let password = try EnvironmentExpansion.expand(config.option(Self.password) ?? "", header: "password", environment: environment)
            headers =
                try RequestBuilder.headers(for: config, environment: environment) + [
                    HTTPHeader(name: "Authorization", value: "Basic " + Data("\(site.user):\(password)".utf8).base64EncodedString())
                ]
        } catch {
            throw .config(error)
        }
        live = LivePost(config)
        do { client = try HTTPUploadClient(cancellation: cancellation) } catch { throw .transport(error) }
    }

    /// The whole photo goes in one request that WordPress stores and then sizes: nothing is gained
    /// by starting it during the download.
    public var acceptsGrowingFiles: Bool { false }

    public func deliver(_ item: DeliveryItem, growing: (any GrowingFile)?, attempt: Int, progress: UploadProgress?) -> DeliveryReport {
        let root: String
        switch prepare(attempt: attempt) {
        case .success(let found): root = found
        case .failure(let settled): return settled.report
        }
        var request = UploadRequest(
            method: "POST", url: WordPressSite.url(root: root, "wp/v2/media", query: uploadQuery(item)),
            headers: headers + [
                HTTPHeader(name: "Content-Disposition", value: "attachment; filename=\"\(SafeFileName.make(item.name))\"")
            ],
            body: .raw, filePath: item.filePath, idempotencyKey: item.key, timeoutSeconds: config.timeoutSeconds,
            maxBytesPerSecond: config.maxBytesPerSecond.flatMap { $0 > 0 ? $0 : nil }, contentType: item.contentType)
        request.prefix = item.prefix
        request.keptAnswer = Self.answerLimit
        // WordPress keeps every copy: a lost answer is found by the re-send's question, never
        // sent again by libcurl on its own.
        request.isRepeatable = false
        let outcome = client.perform(request, progress: progress)
        guard case .success(let answer) = outcome, (200...299).contains(answer.statusCode) else {
            return refused(outcome, attempt: attempt, bytes: EarlierAttempt.sendingSize(item) ?? 0)
        }
        guard let attachment = try? JSONDecoder().decode(WordPressAnswer.Attachment.self, from: Data(answer.body)) else {
            // Stored, but its answer cannot be read: the look-up by slug finds what it is.
            switch find(item, root: root, attempt: attempt) {
            case .landed(let found): return DeliveryReport(decision: .delivered, evidence: .reachable, statusCode: 201, answer: found)
            case .unanswered(let report): return report
            case .absent, .unknowable:
                return DeliveryReport(
                    outcome, decision: .retry(after: policy.backoff.ceiling(attempt: attempt)))
            }
        }
        var report = placed(attachment, item, root: root, attempt: attempt)
        if report.decision == .delivered { report.bytesSent = answer.bytesSent }
        return report
    }

    /// Asks WordPress for the photo's slug: an earlier upload whose answer was lost is found,
    /// and put in the live post's gallery if it is not there yet.
    public func probe(_ item: DeliveryItem, attempt: Int) -> EarlierAttempt {
        switch prepare(attempt: attempt) {
        case .success(let root): return find(item, root: root, attempt: attempt)
        case .failure(let settled): return .unanswered(settled.report)
        }
    }

    public func location(of item: DeliveryItem) -> String {
        site.home + " (media library" + (live.map { ", \($0.name)" } ?? "") + ")"
    }

    /// WordPress has no folders to announce a session in.
    public func deliverSet(manifest: String, marker: String, session: String) -> DeliveryReport? { nil }

    public func summary(of item: DeliveryItem) -> String {
        "POST \(site.home) media as \(site.user) (slug \(WordPressSite.slug(forKey: item.key)))"
            + (live.map { ", into the gallery of \($0.name)" } ?? "")
    }

    // MARK: - The site

    /// The REST root (found once), and the live post checked once: or the report that settles the attempt.
    private func prepare(attempt: Int) -> Result<String, Settled> {
        let root: String
        if let known = self.root {
            root = known
        } else {
            switch discover(attempt: attempt) {
            case .success(let found): root = found
            case .failure(let settled): return .failure(settled)
            }
            self.root = root
        }
        guard let live, !livePostFound else { return .success(root) }
        let url = WordPressSite.url(root: root, live.route, query: [("context", "edit"), ("_fields", "id")])
        switch ask(api("GET", url), attempt: attempt) {
        case .success:
            livePostFound = true
            return .success(root)
        case .failure(var settled):
            if settled.report.statusCode == 404 {
                let (kind, other) = live.isPage ? ("page", "post") : ("post", "page")
                settled.report.decision = .permanent(
                    reason: "WordPress at \(site.home) has no \(kind) \(live.id) (HTTP 404): check --\(kind) "
                        + "(a \(other) is --\(other) ID), then relay retry")
            }
            return .failure(settled)
        }
    }

    /// The REST root the site's home announces in its `Link` header.
    private func discover(attempt: Int) -> Result<String, Settled> {
        var outcome = client.perform(api("HEAD", site.home))
        // A site may answer HEAD without its headers; its page then says them.
        if case .success(let answer) = outcome, WordPressSite.restRoot(fromLinks: answer.headers(named: "Link")) == nil {
            outcome = client.perform(api("GET", site.home))
        }
        let answer: UploadResponse
        switch outcome {
        case .success(let got): answer = got
        case .failure(let error):
            return .failure(Settled(DeliveryReport(.failure(error), decision: policy.decide(.failure(error), attempt: attempt))))
        }
        if let root = WordPressSite.restRoot(fromLinks: answer.headers(named: "Link")) { return .success(root) }
        var report = DeliveryReport(.success(answer), decision: policy.decide(.success(answer), attempt: attempt))
        guard case .retry = report.decision else {
            let moved = answer.header("Location").map { " (it moved to \($0): give that address)" } ?? ""
            report.decision = .permanent(
                reason: "\(site.home) answered HTTP \(answer.statusCode) without announcing a WordPress REST API (no "
                    + "Link: rel=\"https://api.w.org/\")\(moved): give the WordPress site's address, with its folder if it has "
                    + "one, and check that no plugin turns the REST API off")
            report.problem = "no WordPress REST API at \(site.home)"
            return .failure(Settled(report))
        }
        return .failure(Settled(report))
    }

    // MARK: - Photos

    /// The upload's query: its slug, the live post it is attached to, and the stamp's words.
    private func uploadQuery(_ item: DeliveryItem) -> [(String, String)] {
        var query = [("slug", WordPressSite.slug(forKey: item.key)), ("_fields", "id,source_url,media_details")]
        if let live { query.append(("post", "\(live.id)")) }
        let words = item.words ?? PhotoWords()
        if !words.title.isEmpty { query.append(("title", words.title)) }
        if !words.caption.isEmpty { query.append(("caption", words.caption)) }
        let alt = words.caption.isEmpty ? words.title : words.caption
        if !alt.isEmpty { query.append(("alt_text", alt)) }
        return query
    }

    /// The attachment with the photo's slug, put in the live post's gallery when found.
    private func find(_ item: DeliveryItem, root: String, attempt: Int) -> EarlierAttempt {
        let slug = WordPressSite.slug(forKey: item.key)
        let url = WordPressSite.url(
            root: root, "wp/v2/media", query: [("slug", slug), ("context", "edit"), ("_fields", "id,source_url,media_details")])
        let answer: UploadResponse
        switch ask(api("GET", url), attempt: attempt) {
        case .success(let got): answer = got
        case .failure(let settled): return .unanswered(settled.report)
        }
        guard let found = try? JSONDecoder().decode([WordPressAnswer.Attachment].self, from: Data(answer.body)) else {
            let report = DeliveryReport(
                decision: .retry(after: policy.backoff.ceiling(attempt: attempt)), evidence: .reachable,
                statusCode: answer.statusCode, problem: "WordPress's answer to the look-up of \(slug) could not be read")
            return .unanswered(report)
        }
        guard let attachment = found.first else { return .absent }
        let report = placed(attachment, item, root: root, attempt: attempt)
        guard report.decision == .delivered else { return .unanswered(report) }
        return .landed(answer: "attachment \(attachment.id), found by its slug \(slug)" + (live == nil ? "" : ", in the gallery"))
    }

    /// Delivered once `attachment` is in the live post's gallery (at once without a live post).
    private func placed(_ attachment: WordPressAnswer.Attachment, _ item: DeliveryItem, root: String, attempt: Int) -> DeliveryReport {
        let stored = "attachment \(attachment.id) (\(attachment.sourceURL))"
        guard let live else { return DeliveryReport(decision: .delivered, evidence: .reachable, statusCode: 201, answer: stored) }
        let words = item.words ?? PhotoWords()
        let image = WordPressGallery.Image(
            id: attachment.id, url: attachment.largeURL ?? attachment.sourceURL, sizeSlug: attachment.largeURL == nil ? "full" : "large",
            alt: words.caption.isEmpty ? words.title : words.caption, caption: words.caption, capturedAt: item.template.capturedAt)
        let postURL = WordPressSite.url(root: root, live.route)
        let result = WordPressPostWriter.of(postURL).add(image) { images, takenAt in
            writeGallery(images, postURL: postURL, takenAt: takenAt, attempt: attempt)
        }
        switch result {
        case .written:
            return DeliveryReport(
                decision: .delivered, evidence: .reachable, statusCode: 201,
                answer: stored + ", in the gallery of \(live.name)")
        case .failed(var report):
            report.problem = "\(stored) is in the media library, but not yet in the live post's gallery: \(report.problem ?? "")"
            return report
        }
    }

    /// Reads the live post, adds `images` to its gallery and writes it back.
    private func writeGallery(
        _ images: [WordPressGallery.Image], postURL: String, takenAt: (Int) -> Date?, attempt: Int
    ) -> WordPressPostWriter.Written {
        // Only the raw content: asked for the whole `content`, WordPress renders the gallery too
        // (every image's srcset), which took 0.3 s at 15 photos and grew with each.
        let readURL = postURL + (postURL.contains("?") ? "&" : "?") + "context=edit&_fields=content.raw"
        let post: UploadResponse
        switch ask(api("GET", readURL), attempt: attempt) {
        case .success(let got): post = got
        case .failure(let settled): return .failed(settled.report)
        }
        guard let content = WordPressAnswer.rawContent(post.body) else {
            return .failed(
                DeliveryReport(
                    decision: .retry(after: policy.backoff.ceiling(attempt: attempt)), evidence: .reachable,
                    statusCode: post.statusCode, problem: "the live post's content could not be read"))
        }
        let updated = WordPressGallery.adding(images, to: content, takenAt: takenAt)
        guard updated != content else { return .written }
        struct Update: Encodable { var content: String }
        let json = (try? JSONEncoder().encode(Update(content: updated))).map { [UInt8]($0) } ?? []
        // Answered with the id alone, not the post rendered again.
        let writeURL = postURL + (postURL.contains("?") ? "&" : "?") + "_fields=id"
        switch ask(api("POST", writeURL, json: json), attempt: attempt) {
        case .success: return .written
        case .failure(let settled): return .failed(settled.report)
        }
    }

    // MARK: - Answers

    /// One exchange with the REST API; anything but a 2xx answer becomes the report that settles
    /// the attempt, a refusal the user can fix said in their words.
    private func ask(_ request: UploadRequest, attempt: Int) -> Result<UploadResponse, Settled> {
        let outcome = client.perform(request)
        if case .success(let answer) = outcome, answer.isSuccess { return .success(answer) }
        return .failure(Settled(refused(outcome, attempt: attempt, bytes: 0)))
    }

    /// A request to the site (the REST API, its home page) with the config's headers, its JSON
    /// answer kept whole (a post's content with its gallery).
    private func api(_ method: String, _ url: String, json: [UInt8] = []) -> UploadRequest {
        var request = UploadRequest(
            method: method, url: url, headers: headers, body: .inline(json), filePath: "", idempotencyKey: "",
            timeoutSeconds: config.timeoutSeconds ?? 60, contentType: "application/json")
        request.keptAnswer = Self.answerLimit
        return request
    }

    /// The report that settles an attempt before its photo is sent (or once it failed).
    private struct Settled: Error {
        var report: DeliveryReport
        init(_ report: DeliveryReport) { self.report = report }
    }

    /// The report of an answer that did not deliver: WordPress's refusals a user can fix are
    /// permanent and say what to do; the rest follow the delivery rules.
    private func refused(_ outcome: Result<UploadResponse, UploadTransportError>, attempt: Int, bytes: Int64) -> DeliveryReport {
        var report = DeliveryReport(outcome, decision: policy.decide(outcome, attempt: attempt))
        guard case .success(let answer) = outcome,
            let reason = WordPressAnswer.refusal(
                status: answer.statusCode, body: answer.body, user: site.user, bytes: bytes,
                post: live?.name)
        else { return report }
        report.decision = .permanent(reason: reason)
        return report
    }
}

/// The post or page whose gallery each photo goes into (`--post ID`, `--page ID`).
struct LivePost: Sendable, Equatable {
    var isPage: Bool
    var id: Int

    init?(_ config: RequestConfig) {
        if let post = config.option(WordPressDestination.post).flatMap(Int.init) {
            (isPage, id) = (false, post)
        } else if let page = config.option(WordPressDestination.page).flatMap(Int.init) {
            (isPage, id) = (true, page)
        } else {
            return nil
        }
    }

    /// Its REST route, below the API's root.
    var route: String { "wp/v2/\(isPage ? "pages" : "posts")/\(id)" }

    /// "post 7", as messages say it.
    var name: String { "\(isPage ? "page" : "post") \(id)" }
}

extension WordPressDestination: DestinationKind {
    public static let schemes = ["wp", "wps"]

    public static let password = ConfigField(
        "password", .secretReference, option: "--password", placeholder: "'${WP_APP_PASSWORD}'",
        help: "the password of the URL's user (a WordPress Application Password), as a ${VAR} read from the environment")

    public static let post = ConfigField(
        "post", .text, option: "--post", placeholder: "ID", help: "attach each photo to this post and put it first in a gallery in it")

    public static let page = ConfigField(
        "page", .text, option: "--page", placeholder: "ID", help: "the same as --post, for a page")

    public static let fields = [password, post, page]

    /// A user and an Application Password, no password in the URL, and at most one live post.
    public static func validate(_ config: RequestConfig, url: URLComponents) throws(ConfigError) {
        if url.password != nil {
            throw .invalidURL(
                config.url,
                reason: "a password in the URL would be stored in the file; give \"password\": \"${WP_APP_PASSWORD}\" instead")
        }
        _ = try WordPressSite(config: config)
        guard config.options[password.name] != nil else {
            throw .invalidSetting(
                "password",
                reason: "WordPress takes uploads with an Application Password: make one under Users → Profile → Application "
                    + "Passwords and give it as --password '${WP_APP_PASSWORD}'")
        }
        if config.options[post.name] != nil && config.options[page.name] != nil {
            throw .invalidSetting("page", reason: "give --post or --page, not both: photos go into one live gallery")
        }
        for field in [post, page] {
            guard let value = config.option(field) else { continue }
            guard let id = Int(value), id > 0 else {
                throw .invalidSetting(field.name, reason: "\(field.name) is the \(field.name)'s number, as in its edit link (post=42)")
            }
        }
    }

    public static func warnings(_ config: RequestConfig) -> [String] {
        guard config.scheme == "wp" else { return [] }
        return [
            "wp:// sends the Application Password in clear over http: use wps:// unless the site is on this machine or a "
                + "network you trust"
        ]
    }

    public static func make(
        _ config: RequestConfig, environment: [String: String], policy: DeliveryPolicy, cancellation: UploadCancellation
    ) throws(DestinationError) -> any Destination {
        try WordPressDestination(config: config, environment: environment, policy: policy, cancellation: cancellation)
    }
}
