import Foundation
import RelayCore

/// Where an Immich server is, from a config's `immichs://HOST[:PORT][/PATH]` (https) or
/// `immich://HOST[:PORT][/PATH]` (http) URL: the address Immich is opened at, relay adds `/api`.
public struct ImmichServer: Sendable, Equatable {
    public var secure: Bool
    /// As the URL writes it (an IPv6 literal keeps its brackets).
    public var host: String
    public var port: Int?
    /// Where Immich is served below the host, without a trailing slash ("" at the root).
    public var path: String

    public init(config: RequestConfig) throws(ConfigError) {
        let text = config.url.trimmingCharacters(in: .whitespacesAndNewlines)
        let usage = "an Immich destination's URL is immichs://HOST[:PORT]/ (https) or immich://HOST[:PORT]/ (http)"
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(), ImmichDestination.schemes.contains(scheme),
            let host = url.host, !host.isEmpty
        else {
            throw .invalidURL(text, reason: usage)
        }
        guard url.user == nil, url.password == nil else {
            throw .invalidURL(text, reason: "Immich takes an API key, not a user: --header 'x-api-key: ${IMMICH_KEY}'")
        }
        guard url.query == nil, url.fragment == nil, !text.contains("{") else {
            throw .invalidURL(text, reason: usage + ", without a query or placeholders")
        }
        var path = url.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        if path.lowercased().hasSuffix("/api") {
            throw .invalidURL(text, reason: "give the address Immich is opened at, without /api (relay adds it)")
        }
        secure = scheme == "immichs"
        self.host = host
        port = url.port
        self.path = path
    }

    /// `https://HOST[:PORT][/PATH]/api` + `route` (`/assets`).
    public func url(_ route: String) -> String {
        (secure ? "https" : "http") + "://\(host)" + (port.map { ":\($0)" } ?? "") + path + "/api" + route
    }

    /// `immichs://HOST[:PORT][/PATH]/`, how the history and lists name the server.
    public var displayName: String {
        (secure ? "immichs" : "immich") + "://\(host)" + (port.map { ":\($0)" } ?? "") + path + "/"
    }
}

/// Immich's upload and album API as relay speaks it (pure: the requests' bodies, the answers'
/// meaning and the words for what a user can fix). The contract is docs/IMMICH.md, read in
/// Immich's server code.
public enum ImmichAPI {
    /// The form fields of `POST /api/assets`, sent before the file part (Immich's file filter
    /// sees only the fields before it): `deviceAssetId` is the photo's relay key (the same on
    /// every attempt), `deviceId` names this relay, both dates are the capture time (the spool
    /// file's time is when relay copied it, which says nothing to a gallery), and `filename`
    /// the camera's name (Immich v2's `originalFileName`; older servers drop unknown fields).
    public static func uploadFields(for item: DeliveryItem, deviceId: String) -> [FormField] {
        let taken = timestamp(item.template.capturedAt)
        return [
            FormField(name: "deviceAssetId", value: item.key),
            FormField(name: "deviceId", value: deviceId),
            FormField(name: "fileCreatedAt", value: taken),
            FormField(name: "fileModifiedAt", value: taken),
            FormField(name: "filename", value: item.name),
        ]
    }

    /// ISO 8601 in UTC with milliseconds, what Immich's `ValidateDate` takes.
    public static func timestamp(_ date: Date) -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
    }

    /// `this relay`'s `deviceId`: "relay-" and the host's name, stable across runs, so Immich's
    /// device view groups what one relay sent.
    public static func deviceId(hostName: String) -> String {
        let name = hostName.split(separator: ".").first.map(String.init) ?? ""
        return "relay-" + (name.isEmpty ? "unknown" : name)
    }

    /// What `POST /api/assets` said it did: stored it (201) or had it already (200 duplicate).
    public enum Stored: Sendable, Equatable {
        case created(id: String)
        case duplicate(id: String)

        public var id: String {
            switch self {
            case .created(let id), .duplicate(let id): id
            }
        }
    }

    private struct UploadAnswer: Decodable {
        var id: String
        var status: String
    }

    /// The answer of an upload that Immich took, nil when a 2xx is not in Immich's shape (a web
    /// server that is not Immich).
    public static func stored(_ response: UploadResponse) -> Stored? {
        guard let answer = try? JSONDecoder().decode(UploadAnswer.self, from: Data(response.body)), !answer.id.isEmpty else { return nil }
        switch (response.statusCode, answer.status) {
        case (201, "created"): return .created(id: answer.id)
        case (200, "duplicate"), (201, "duplicate"): return .duplicate(id: answer.id)
        default: return nil
        }
    }

    /// `{"assets": [{"id": KEY, "checksum": SHA1}]}` for `POST /api/assets/bulk-upload-check`.
    public static func bulkUploadCheck(key: String, checksum: String) -> [UInt8] {
        json(["assets": [["id": key, "checksum": checksum]]])
    }

    /// An asset Immich holds with the checksum asked about.
    public struct Found: Sendable, Equatable {
        public var id: String
        /// In Immich's trash: it still counts (an upload would be answered "duplicate").
        public var isTrashed: Bool
    }

    private struct BulkCheckAnswer: Decodable {
        struct Result: Decodable {
            var id: String
            var action: String
            var assetId: String?
            var isTrashed: Bool?
        }
        var results: [Result]
    }

    /// The answer to `bulkUploadCheck(key:)`: `.some(nil)` when Immich would accept the photo
    /// (it does not have it), `.some(found)` when it has it, nil when the answer is not Immich's.
    public static func found(key: String, in body: [UInt8]) -> Found?? {
        guard let answer = try? JSONDecoder().decode(BulkCheckAnswer.self, from: Data(body)),
            let result = answer.results.first(where: { $0.id == key })
        else { return nil }
        guard result.action == "reject", let id = result.assetId else { return .some(nil) }
        return .some(Found(id: id, isTrashed: result.isTrashed ?? false))
    }

    private struct Album: Decodable {
        var id: String
        var albumName: String
        var createdAt: String?
    }

    /// The album named `name` in `GET /api/albums`'s answer: names are not unique in Immich (two
    /// relays can each make one), so the oldest is taken (earliest `createdAt`, then the
    /// smallest id), the one every relay picks. `.some(nil)` when there is none, nil when the
    /// answer is not Immich's.
    public static func album(named name: String, in body: [UInt8]) -> String?? {
        guard let albums = try? JSONDecoder().decode([Album].self, from: Data(body)) else { return nil }
        let named = albums.filter { $0.albumName == name }
        let oldest = named.min { ($0.createdAt ?? "", $0.id) < ($1.createdAt ?? "", $1.id) }
        return .some(oldest?.id)
    }

    /// `{"albumName": NAME, "assetIds": [ID]}` for `POST /api/albums`: the album is made with the
    /// asset already in it.
    public static func newAlbum(named name: String, with assetId: String) -> [UInt8] {
        json(["albumName": name, "assetIds": [assetId]])
    }

    /// The id of the album `POST /api/albums` made.
    public static func madeAlbum(in body: [UInt8]) -> String? {
        (try? JSONDecoder().decode(Album.self, from: Data(body)))?.id
    }

    /// `{"ids": [ID]}` for `PUT /api/albums/{id}/assets`.
    public static func albumAssets(_ assetId: String) -> [UInt8] {
        json(["ids": [assetId]])
    }

    private struct AddedAsset: Decodable {
        var id: String
        var success: Bool
        var error: String?
    }

    /// Whether `PUT /api/albums/{id}/assets` left the asset in the album: added, or there
    /// already ("duplicate", a re-send's). Otherwise the reason Immich gave (`no_permission`).
    public static func added(_ assetId: String, in body: [UInt8]) -> Result<Void, AlbumRefusal> {
        guard let results = try? JSONDecoder().decode([AddedAsset].self, from: Data(body)),
            let result = results.first(where: { $0.id == assetId })
        else { return .failure(AlbumRefusal(reason: "an answer that is not Immich's")) }
        if result.success || result.error == "duplicate" { return .success(()) }
        return .failure(AlbumRefusal(reason: result.error ?? "unknown"))
    }

    /// Why Immich did not put an asset in an album.
    public struct AlbumRefusal: Error, Sendable, Equatable {
        public var reason: String
    }

    /// Immich's error `message` (one text, or class-validator's list joined by "; "), else the
    /// answer's own summary.
    public static func message(_ response: UploadResponse) -> String {
        if let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] {
            if let text = object["message"] as? String { return text }
            if let list = object["message"] as? [String] { return list.joined(separator: "; ") }
        }
        return response.bodySummary
    }

    /// The decision on an answer that is not a success: what the user can fix (the API key, its
    /// permissions, the proxy's size limit, the quota, a URL that is not Immich's) is permanent
    /// and says how; 5xx, 408, 429 and transport errors are DeliveryPolicy's (retried).
    /// `sentBytes` is the body's size, said when it was too large.
    public static func decide(
        _ outcome: Result<UploadResponse, UploadTransportError>, attempt: Int, policy: DeliveryPolicy, server: ImmichServer,
        route: String, sentBytes: Int64? = nil
    ) -> DeliveryDecision {
        guard case .success(let response) = outcome, !(200...299).contains(response.statusCode),
            !DeliveryPolicy.isRetryable(statusCode: response.statusCode)
        else { return policy.decide(outcome, attempt: attempt) }
        let status = response.statusCode
        let said = "HTTP \(status): \(message(response))"
        switch status {
        case 401:
            return .permanent(
                reason: "Immich at \(server.displayName) refused the API key (\(said)): make a key in Immich under "
                    + "Account Settings → API Keys and give it as --header 'x-api-key: ${IMMICH_KEY}', then relay retry")
        case 403:
            return .permanent(
                reason: "the API key may not do this (\(said)): give the key the permissions asset.upload "
                    + "(and album.read, album.create, albumAsset.create for --album), then relay retry")
        case 413:
            let size = sentBytes.map { "the photo is " + String(format: "%.1f MB", Double($0) / 1_000_000) + " (\($0) bytes)" }
            return .permanent(
                reason: "\(size ?? "the request is") larger than the server in front of Immich takes (HTTP 413: "
                    + "\(response.bodySummary)): raise its upload limit (nginx: client_max_body_size), or send a "
                    + "rendition, then relay retry")
        case 404, 405:
            return .permanent(
                reason: "\(server.displayName) is not an Immich server (\(route) answered \(said)): give the address "
                    + "Immich is opened at, then relay retry")
        case 400 where message(response).contains("Quota has been exceeded"):
            return .permanent(
                reason: "the Immich account's storage quota is used up (\(said)): free space in Immich or ask its "
                    + "admin for a larger quota, then relay retry")
        default:
            return .permanent(reason: "Immich refused \(route) (\(said))")
        }
    }

    private static func json(_ object: [String: Any]) -> [UInt8] {
        Array((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data())
    }
}
