import Foundation
import RelayCore

/// A WebDAV server: Nextcloud, ownCloud, a Synology or QNAP NAS, Apache mod_dav, where studios
/// keep their archive. `dav://HOST[:PORT]/PATH` travels as http, `davs://` as https.
///
/// Each photo is PUT as `.NAME.part` beside its final name and MOVEd into place once the server
/// has all of it, so no partial file is ever visible under a photo's name; a retry PUTs and
/// MOVEs again (Overwrite: T), which leaves one file. A folder the PUT finds missing (409) is
/// made with MKCOL, its missing parents first, and remembered. Authentication: basic, with the
/// URL's user and the config's `password` (a `${NAME}` reference), or any header the config
/// names (`Authorization: Bearer ${TOKEN}`).
public final class WebDAVDestination: Destination {
    private let config: RequestConfig
    private let location: WebDAVLocation
    private let headers: [HTTPHeader]
    private let policy: DeliveryPolicy
    private let client: HTTPUploadClient
    /// Folders known to exist (made, or written to), so MKCOL is not asked for them again.
    private var knownFolders: Set<String> = []

    public init(
        config: RequestConfig, environment: [String: String], policy: DeliveryPolicy, cancellation: UploadCancellation
    ) throws(DestinationError) {
        self.config = config
        self.policy = policy
        do {
            location = try WebDAVLocation(config: config)
            var headers = try RequestBuilder.headers(for: config, environment: environment)
            if let user = location.user, let password = config.option(Self.password) {
                let secret = try EnvironmentExpansion.expand(password, header: "password", environment: environment)
                headers.append(HTTPHeader(name: "Authorization", value: "Basic " + Data("\(user):\(secret)".utf8).base64EncodedString()))
            }
            self.headers = headers
        } catch {
            throw .config(error)
        }
        do { client = try HTTPUploadClient(cancellation: cancellation) } catch { throw .transport(error) }
    }

    /// The whole file is needed before its MOVE; an upload during the download would gain little.
    public var acceptsGrowingFiles: Bool { false }

    public func deliver(_ item: DeliveryItem, growing: (any GrowingFile)?, attempt: Int, progress: UploadProgress?) -> DeliveryReport {
        upload(
            item.filePath, to: location.target(for: item.template), contentType: item.contentType, key: item.key,
            attempt: attempt, prefix: item.prefix, progress: progress)
    }

    /// PROPFIND (`Depth: 0`) of the final name: there whole when it holds as many bytes as the
    /// PUT would send. The file appears under that name only by the MOVE of a whole upload, so
    /// its size tells an earlier attempt's from a file someone else put there cut short.
    public func probe(_ item: DeliveryItem, attempt: Int) -> EarlierAttempt {
        guard let size = EarlierAttempt.sendingSize(item) else { return .unknowable }
        let target = location.target(for: item.template)
        let asked = client.perform(
            request(
                "PROPFIND", location.url(target.finalPath), filePath: "", key: item.key, contentType: "application/xml",
                extra: [HTTPHeader(name: "Depth", value: "0")]))
        return .asked(asked, attempt: attempt, policy: policy) { answer in
            .bySize(found: WebDAVMultistatus.contentLength(in: answer.body), sending: size, how: "PROPFIND")
        }
    }

    public func location(of item: DeliveryItem) -> String {
        location.displayName(location.target(for: item.template))
    }

    /// `PREFIX/SESSION/manifest.json` then `PREFIX/SESSION/_DONE`, each moved into place like a photo.
    public func deliverSet(manifest: String, marker: String, session: String) -> DeliveryReport? {
        let folder = location.pathTemplate.sessionFolder(session)
        return .manifestThenDone(manifest: manifest, marker: marker) { file, name in
            upload(
                file, to: FileTransferLocation.Target(folder: folder, name: name),
                contentType: name.hasSuffix(".json") ? "application/json" : "application/octet-stream",
                key: "manifest-\(session)-\(name)", attempt: 0)
        }
    }

    public func summary(of item: DeliveryItem) -> String {
        "PUT \(location.displayName(location.target(for: item.template))) (via .part, then MOVE)"
    }

    /// Attempts during which a refused MKCOL whose PUT still finds no folder is put down to
    /// another worker making the same folders, and retried.
    static let folderRaceAttempts = 3

    /// PUT under the temporary name (making missing folders), then MOVE into place.
    private func upload(
        _ filePath: String, to target: FileTransferLocation.Target, contentType: String, key: String,
        attempt: Int, prefix: BodyPrefix? = nil, progress: UploadProgress? = nil
    ) -> DeliveryReport {
        var put = request("PUT", location.url(target.partPath), filePath: filePath, key: key, contentType: contentType)
        put.prefix = prefix
        var sent = client.perform(put, progress: progress)
        if case .success(let answer) = sent, answer.statusCode == 409, !target.folder.isEmpty, !knownFolders.contains(target.folder) {
            let failure = makeFolder(target.folder, key: key, attempt: attempt)
            sent = client.perform(put, progress: progress)
            // Another worker making the same folder at the same moment can make Apache refuse
            // this MKCOL (403): the PUT decides. A PUT that still finds no folder (409) may be
            // racing that worker's MKCOLs of the parents: it is tried again, and the refusal
            // stands only from the third attempt on.
            if let failure, case .success(let answer) = sent, !(200...299).contains(answer.statusCode) {
                guard answer.statusCode == 409, attempt < Self.folderRaceAttempts else { return failure }
                return DeliveryReport(sent, decision: .retry(after: policy.backoff.ceiling(attempt: attempt)))
            }
        }
        guard case .success(let stored) = sent, (200...299).contains(stored.statusCode) else {
            return DeliveryReport(sent, decision: policy.decide(sent, attempt: attempt))
        }
        knownFolders.insert(target.folder)
        let move = request(
            "MOVE", location.url(target.partPath), filePath: "", key: key, contentType: contentType,
            extra: [
                HTTPHeader(name: "Destination", value: location.url(target.finalPath)),
                HTTPHeader(name: "Overwrite", value: "T"),
            ])
        let moved = client.perform(move)
        var report = DeliveryReport(moved, decision: policy.decide(moved, attempt: attempt))
        report.bytesSent = stored.bytesSent
        if report.decision == .delivered { report.answer = "stored as \(location.displayName(target))" }
        return report
    }

    /// MKCOL for `folder`, and first for its missing parents (a 409 says the parent is missing);
    /// 405 means it is there already. Nil once it exists, else the report of what refused it.
    private func makeFolder(_ folder: String, key: String, attempt: Int) -> DeliveryReport? {
        let made = client.perform(request("MKCOL", location.url(folder + "/"), filePath: "", key: key, contentType: "text/plain"))
        guard case .success(let answer) = made else { return DeliveryReport(made, decision: policy.decide(made, attempt: attempt)) }
        switch answer.statusCode {
        case 200...299, 405:
            knownFolders.insert(folder)
            return nil
        case 409:
            guard let slash = folder.lastIndex(of: "/") else { break }
            if let failure = makeFolder(String(folder[..<slash]), key: key, attempt: attempt) { return failure }
            return makeFolder(folder, key: key, attempt: attempt)
        default:
            break
        }
        var report = DeliveryReport(made, decision: policy.decide(made, attempt: attempt))
        if case .permanent(let reason) = report.decision {
            report.decision = .permanent(
                reason: "the WebDAV server would not make the folder /\(folder) (\(reason)): check the "
                    + "path in the URL and the account's rights there, then relay retry")
            report.problem = "could not make the folder /\(folder): \(reason)"
        }
        return report
    }

    private func request(
        _ method: String, _ url: String, filePath: String, key: String, contentType: String,
        extra: [HTTPHeader] = []
    ) -> UploadRequest {
        UploadRequest(
            method: method, url: url, headers: headers + extra, body: .raw, filePath: filePath, idempotencyKey: key,
            timeoutSeconds: config.timeoutSeconds, maxBytesPerSecond: config.maxBytesPerSecond.flatMap { $0 > 0 ? $0 : nil },
            contentType: contentType)
    }
}

/// Where a photo goes on a WebDAV server, from a config's `dav://` or `davs://` URL (pure, so
/// paths are tested without a server). The path is a template like an FTP destination's: a path
/// without placeholders is a folder, followed by the photo's name.
public struct WebDAVLocation: Sendable, Equatable {
    /// https (`davs://`) or http (`dav://`).
    public var secure: Bool
    public var user: String?
    public var host: String
    public var port: Int?
    /// The path below the server's root, without a leading slash.
    public var pathTemplate: PathTemplate

    public init(config: RequestConfig) throws(ConfigError) {
        let url = config.url.trimmingCharacters(in: .whitespacesAndNewlines)
        let template = try PathTemplate(url)
        guard let sample = URLComponents(string: template.render(PathTemplate.sample)), let scheme = sample.scheme?.lowercased(),
            ["dav", "davs"].contains(scheme), let host = sample.host, !host.isEmpty
        else {
            throw .invalidURL(url, reason: "a WebDAV destination's URL is dav:// or davs://[USER@]HOST[:PORT]/PATH")
        }
        secure = scheme == "davs"
        // URLComponents keeps an IPv6 literal's brackets; they are put back when a URL is made.
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        port = sample.port
        user = sample.user.flatMap { $0.isEmpty ? nil : $0.removingPercentEncoding ?? $0 }
        let afterScheme = url[url.index(url.startIndex, offsetBy: scheme.count + 3)...]
        var path = afterScheme.firstIndex(of: "/").map { String(afterScheme[$0...]) } ?? "/"
        path = path.removingPercentEncoding ?? path
        while path.hasPrefix("/") { path.removeFirst() }
        var pathTemplate = try PathTemplate(path)
        if !pathTemplate.hasPlaceholders {
            while path.hasSuffix("/") { path.removeLast() }
            pathTemplate = try PathTemplate(path.isEmpty ? "{name}" : path + "/{name}")
        }
        self.pathTemplate = pathTemplate
    }

    public func target(for values: PathTemplate.Values) -> FileTransferLocation.Target {
        let path = pathTemplate.render(values)
        guard let slash = path.lastIndex(of: "/") else { return FileTransferLocation.Target(folder: "", name: path) }
        return FileTransferLocation.Target(folder: String(path[..<slash]), name: String(path[path.index(after: slash)...]))
    }

    /// The http(s) URL of `path` (below the server's root), each segment percent-encoded.
    public func url(_ path: String) -> String {
        let encoded = path.split(separator: "/", omittingEmptySubsequences: false).map { FileTransferLocation.encode(String($0)) }
            .joined(separator: "/")
        let host = host.contains(":") ? "[\(host)]" : host
        return (secure ? "https" : "http") + "://\(host)" + (port.map { ":\($0)" } ?? "") + "/" + encoded
    }

    /// `dav://photo@nas:8080/wedding/IMG_0042.JPG`, how the history and the log name a delivered file.
    public func displayName(_ target: FileTransferLocation.Target) -> String {
        (secure ? "davs" : "dav") + "://\(user.map { "\($0)@" } ?? "")\(host)" + (port.map { ":\($0)" } ?? "") + "/" + target.finalPath
    }
}

extension WebDAVDestination: DestinationKind {
    public static let schemes = ["dav", "davs"]

    public static let password = ConfigField(
        "password", .secretReference, option: "--password", placeholder: "'${DAV_PASSWORD}'",
        help: "the password of the URL's user, as a ${VAR} read from the environment")

    public static let fields = [password]

    /// No password in the URL, and a password only with a user to go with it.
    public static func validate(_ config: RequestConfig, url: URLComponents) throws(ConfigError) {
        if url.password != nil {
            throw .invalidURL(
                config.url, reason: "a password in the URL would be stored in the file; give \"password\": \"${DAV_PASSWORD}\" instead")
        }
        if config.options[Self.password.name] != nil && (url.user ?? "").isEmpty {
            throw .invalidURL(config.url, reason: "a password needs a user: dav://USER@HOST/PATH")
        }
    }

    public static func make(
        _ config: RequestConfig, environment: [String: String], policy: DeliveryPolicy, cancellation: UploadCancellation
    ) throws(DestinationError) -> any Destination {
        try WebDAVDestination(config: config, environment: environment, policy: policy, cancellation: cancellation)
    }
}
