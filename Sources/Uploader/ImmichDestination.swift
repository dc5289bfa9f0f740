import Foundation
import RelayCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An Immich server (self-hosted photo library): `immichs://HOST/` (https) or `immich://HOST/`
/// (http), with an API key as `--header 'x-api-key: ${IMMICH_KEY}'`, optionally into an album.
///
/// Each photo is one `POST /api/assets` (multipart: the text fields, then `assetData`) with
/// `x-immich-checksum`, the SHA-1 of exactly the bytes sent (a stamp's header included). Immich
/// answers 201 for a new asset and 200 "duplicate" for one it already has (by that checksum):
/// both are delivered. A re-send first asks `POST /api/assets/bulk-upload-check` by the checksum,
/// so a photo whose answer was lost is neither sent again nor stored twice. With `--album`, the
/// asset is then put in that album (found by name, the oldest of that name, or made); if that
/// step fails the leg is retried, and the re-send's question finds the asset and adds it.
public final class ImmichDestination: Destination {
    private let config: RequestConfig
    private let server: ImmichServer
    private let headers: [HTTPHeader]
    private let policy: DeliveryPolicy
    private let client: HTTPUploadClient
    private let album: String?
    /// The album's entry in the run's shared directory: this server, this account, this name.
    private let albumKey: String
    private let deviceId: String

    public init(
        config: RequestConfig, environment: [String: String], policy: DeliveryPolicy, cancellation: UploadCancellation,
        deviceId: String = ImmichAPI.deviceId(hostName: ImmichDestination.hostName())
    ) throws(DestinationError) {
        self.config = config
        self.policy = policy
        self.deviceId = deviceId
        album = config.option(Self.album)
        do {
            server = try ImmichServer(config: config)
            headers = try RequestBuilder.headers(for: config, environment: environment)
        } catch {
            throw .config(error)
        }
        var account = SHA256Digest()
        account.update(Array(headers.map { "\($0.name.lowercased()): \($0.value)" }.joined(separator: "\n").utf8))
        albumKey = [server.url(""), account.hex(), album ?? ""].joined(separator: "\n")
        do { client = try HTTPUploadClient(cancellation: cancellation) } catch { throw .transport(error) }
    }

    /// The checksum is of the whole photo, so it goes once it is whole.
    public var acceptsGrowingFiles: Bool { false }

    public func deliver(_ item: DeliveryItem, growing: (any GrowingFile)?, attempt: Int, progress: UploadProgress?) -> DeliveryReport {
        let checksum: String
        switch self.checksum(of: item, attempt: attempt) {
        case .success(let sum): checksum = sum
        case .failure(let settled): return settled.report
        }
        var request = UploadRequest(
            method: "POST", url: server.url("/assets"), headers: headers + [HTTPHeader(name: "x-immich-checksum", value: checksum)],
            body: .multipart(fields: ImmichAPI.uploadFields(for: item, deviceId: deviceId), fileField: "assetData", fileName: item.name),
            filePath: item.filePath, idempotencyKey: item.key, timeoutSeconds: config.timeoutSeconds,
            maxBytesPerSecond: config.maxBytesPerSecond.flatMap { $0 > 0 ? $0 : nil }, contentType: item.contentType)
        request.prefix = item.prefix
        // A lost answer is found by the re-send's question, not sent again by libcurl on its own.
        request.isRepeatable = false
        let outcome = client.perform(request, progress: progress)
        guard case .success(let response) = outcome, (200...299).contains(response.statusCode) else {
            return refused(outcome, route: "POST /api/assets", attempt: attempt, sentBytes: bodySize(item))
        }
        guard let stored = ImmichAPI.stored(response) else { return notImmich(outcome, route: "POST /api/assets") }
        var report = DeliveryReport(outcome, decision: .delivered)
        switch stored {
        case .created(let id): report.answer = "HTTP 201: stored as asset \(id)"
        case .duplicate(let id): report.answer = "HTTP 200: Immich already had it (same checksum) as asset \(id)"
        }
        return inAlbum(stored.id, report, attempt: attempt)
    }

    /// Asks Immich by the SHA-1 of what would be sent whether it has the photo (an earlier
    /// attempt whose answer was lost); when it has, makes sure it is in the album.
    public func probe(_ item: DeliveryItem, attempt: Int) -> EarlierAttempt {
        guard case .success(let checksum) = checksum(of: item, attempt: attempt) else { return .absent }
        let outcome = client.perform(api("POST", "/assets/bulk-upload-check", ImmichAPI.bulkUploadCheck(key: item.key, checksum: checksum)))
        guard case .success(let response) = outcome, response.statusCode == 200 else {
            return .unanswered(refused(outcome, route: "POST /api/assets/bulk-upload-check", attempt: attempt))
        }
        guard let answer = ImmichAPI.found(key: item.key, in: response.body) else {
            return .unanswered(notImmich(outcome, route: "POST /api/assets/bulk-upload-check"))
        }
        guard let found = answer else { return .absent }
        let said = "Immich has it as asset \(found.id) (found by its checksum\(found.isTrashed ? ", in Immich's trash" : ""))"
        let report = inAlbum(found.id, DeliveryReport(outcome, decision: .delivered), attempt: attempt)
        guard report.decision == .delivered else { return .unanswered(report) }
        return .landed(answer: said + (album.map { ", in album '\($0)'" } ?? ""))
    }

    public func location(of item: DeliveryItem) -> String {
        server.displayName + (album.map { " (album \($0))" } ?? "")
    }

    /// Immich has no place for a session's manifest.
    public func deliverSet(manifest: String, marker: String, session: String) -> DeliveryReport? { nil }

    public func summary(of item: DeliveryItem) -> String {
        var parts = ["POST \(server.displayName)api/assets (multipart, assetData=\(item.name), deviceAssetId=\(item.key))"]
        parts.append(contentsOf: RequestBuilder.redactedHeaders(config.headers))
        if let album { parts.append("album: \(album)") }
        return parts.joined(separator: " ")
    }

    /// The host's name, for the `deviceId`.
    public static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(cString: buffer)
    }

    // MARK: - Steps

    /// The SHA-1 (hex) of the body sent for `item`, or the report of a file that cannot be read.
    private func checksum(of item: DeliveryItem, attempt: Int) -> Result<String, Settled> {
        do {
            return .success(try SHA1Digest.of(fileAt: URL(fileURLWithPath: item.filePath), prefix: item.prefix).hex())
        } catch {
            let failure = UploadTransportError(category: .fileUnreadable, message: "\(item.filePath): \(error.localizedDescription)")
            return .failure(Settled(DeliveryReport(.failure(failure), decision: policy.decide(.failure(failure), attempt: attempt))))
        }
    }

    /// The size of the body sent for `item` (the file's, with a stamp's header in place of its own).
    private func bodySize(_ item: DeliveryItem) -> Int64? {
        guard let size = (try? FileManager.default.attributesOfItem(atPath: item.filePath)[.size] as? NSNumber)?.int64Value else {
            return nil
        }
        return item.prefix?.bodySize(fileSize: size) ?? size
    }

    /// `report` (the asset is in Immich) once the asset is in the album too; when the album step
    /// fails, its decision settles the leg, so the re-send's question finds the asset and adds it.
    private func inAlbum(_ assetId: String, _ report: DeliveryReport, attempt: Int) -> DeliveryReport {
        guard let album else { return report }
        guard var failure = addToAlbum(assetId, attempt: attempt) else {
            var done = report
            done.answer = (report.answer ?? "") + ", in album '\(album)'"
            return done
        }
        let landed = "Immich has the photo as asset \(assetId), but not yet in album '\(album)'"
        failure.problem = landed + ": " + (failure.problem ?? "")
        if case .permanent(let reason) = failure.decision { failure.decision = .permanent(reason: landed + ": " + reason) }
        failure.bytesSent = report.bytesSent
        return failure
    }

    /// Puts the asset in the album (found or made once per run); nil once it is there.
    private func addToAlbum(_ assetId: String, attempt: Int) -> DeliveryReport? {
        guard let album else { return nil }
        let albumId: String
        switch ImmichAlbumDirectory.shared.id(albumKey, findOrMake: { findOrMakeAlbum(album, with: assetId, attempt: attempt) }) {
        case .failure(let settled): return settled.report
        case .success(let found) where found.madeWith == assetId: return nil
        case .success(let found): albumId = found.id
        }
        let outcome = client.perform(api("PUT", "/albums/\(albumId)/assets", ImmichAPI.albumAssets(assetId)))
        guard case .success(let response) = outcome, response.statusCode == 200 else {
            if case .success(let response) = outcome, response.statusCode == 400, ImmichAPI.message(response).contains("Album not found") {
                // Deleted in Immich during the run: found or made again on the next attempt.
                ImmichAlbumDirectory.shared.forget(albumKey)
                return DeliveryReport(outcome, decision: .retry(after: policy.backoff.delay(attempt: attempt)))
            }
            return refused(outcome, route: "PUT /api/albums/\(albumId)/assets", attempt: attempt)
        }
        if case .failure(let refusal) = ImmichAPI.added(assetId, in: response.body) {
            var report = DeliveryReport(
                outcome,
                decision: .permanent(reason: "Immich would not put asset \(assetId) in album '\(album)' (\(refusal.reason))"))
            report.problem = "album '\(album)': \(refusal.reason)"
            return report
        }
        return nil
    }

    /// The oldest album named `name` (names are not unique in Immich), or a new one made with
    /// the asset in it.
    private func findOrMakeAlbum(_ name: String, with assetId: String, attempt: Int) -> Result<ImmichAlbumDirectory.Entry, Settled> {
        var list = api("GET", "/albums", [])
        list.keptAnswer = 16 << 20
        let listed = client.perform(list)
        guard case .success(let answer) = listed, answer.statusCode == 200 else {
            return .failure(Settled(refused(listed, route: "GET /api/albums", attempt: attempt)))
        }
        guard let existing = ImmichAPI.album(named: name, in: answer.body) else {
            return .failure(Settled(notImmich(listed, route: "GET /api/albums")))
        }
        if let id = existing { return .success(ImmichAlbumDirectory.Entry(id: id, madeWith: nil)) }
        let made = client.perform(api("POST", "/albums", ImmichAPI.newAlbum(named: name, with: assetId)))
        guard case .success(let response) = made, (200...299).contains(response.statusCode) else {
            return .failure(Settled(refused(made, route: "POST /api/albums", attempt: attempt)))
        }
        guard let id = ImmichAPI.madeAlbum(in: response.body) else { return .failure(Settled(notImmich(made, route: "POST /api/albums"))) }
        return .success(ImmichAlbumDirectory.Entry(id: id, madeWith: assetId))
    }

    /// A JSON request to Immich's API with the config's headers.
    private func api(_ method: String, _ route: String, _ body: [UInt8]) -> UploadRequest {
        var request = UploadRequest(
            method: method, url: server.url(route), headers: headers, body: .inline(body), filePath: "", idempotencyKey: "",
            timeoutSeconds: config.timeoutSeconds ?? 60, contentType: "application/json")
        request.keptAnswer = 1 << 20
        return request
    }

    /// The report of an answer that is not a success, in words the user can act on.
    private func refused(
        _ outcome: Result<UploadResponse, UploadTransportError>, route: String, attempt: Int, sentBytes: Int64? = nil
    ) -> DeliveryReport {
        if case .success(let response) = outcome, [404, 405].contains(response.statusCode), isImmich() {
            let said = "HTTP \(response.statusCode): \(ImmichAPI.message(response))"
            return DeliveryReport(
                outcome,
                decision: .permanent(
                    reason: "Immich at \(server.displayName) has no \(route) (\(said)): relay speaks Immich's v1.106 to v2 API; "
                        + "update Immich, then relay retry"))
        }
        let decision = ImmichAPI.decide(outcome, attempt: attempt, policy: policy, server: server, route: route, sentBytes: sentBytes)
        return DeliveryReport(outcome, decision: decision)
    }

    /// A 2xx that is not in Immich's shape: the URL leads to another web server.
    private func notImmich(_ outcome: Result<UploadResponse, UploadTransportError>, route: String) -> DeliveryReport {
        let said = (try? outcome.get()).map { "HTTP \($0.statusCode) \($0.bodySummary)" } ?? ""
        return DeliveryReport(
            outcome,
            decision: .permanent(
                reason: "\(server.displayName) is not an Immich server (\(route) answered \(said)): give the address Immich "
                    + "is opened at, then relay retry"))
    }

    /// Whether `GET /api/server/ping` answers Immich's `{"res":"pong"}` (asked only when a route
    /// is missing, to tell an old Immich from another server).
    private func isImmich() -> Bool {
        guard case .success(let response) = client.perform(api("GET", "/server/ping", [])), response.statusCode == 200,
            let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        else { return false }
        return object["res"] as? String == "pong"
    }
}

/// A step that did not get what it asked for: its report settles the attempt.
struct Settled: Error {
    var report: DeliveryReport

    init(_ report: DeliveryReport) { self.report = report }
}

/// The id of each album relay puts photos in, per server, account and name, shared by every
/// worker of the run: four workers starting at once find or make one album, not four (Immich's
/// names are not unique). Two relays on one server may still each make one; both then use the
/// oldest, and the other stays empty.
final class ImmichAlbumDirectory: @unchecked Sendable {
    struct Entry: Sendable {
        var id: String
        /// The asset the album was made with (already in it), nil for an album found.
        var madeWith: String?
    }

    static let shared = ImmichAlbumDirectory()

    /// Held while one worker finds or makes an album (a request or two, bounded by curl's
    /// timeouts), so the others wait for its id instead of making their own.
    private let lock = NSLock()
    private var ids: [String: String] = [:]

    /// The album's id: known, or found or made by `findOrMake` (whose entry is returned as is,
    /// and remembered).
    func id(_ key: String, findOrMake: () -> Result<Entry, Settled>) -> Result<Entry, Settled> {
        lock.lock()
        defer { lock.unlock() }
        if let id = ids[key] { return .success(Entry(id: id, madeWith: nil)) }
        let result = findOrMake()
        if case .success(let entry) = result { ids[key] = entry.id }
        return result
    }

    /// Forgets an album Immich no longer has.
    func forget(_ key: String) {
        lock.lock()
        defer { lock.unlock() }
        ids[key] = nil
    }
}

extension ImmichDestination: DestinationKind {
    public static let schemes = ["immich", "immichs"]

    public static let album = ConfigField(
        "album", .text, option: "--album", placeholder: "NAME",
        help: "the Immich album each photo is added to (the oldest of that name, made when there is none)")

    public static let fields = [album]

    /// The API key comes in a header: without one every upload would be refused.
    public static func validate(_ config: RequestConfig, url: URLComponents) throws(ConfigError) {
        _ = try ImmichServer(config: config)
        let names = Set(config.headers.keys.map { $0.lowercased() })
        guard names.contains("x-api-key") || names.contains("authorization") else {
            throw .invalidHeader(
                "x-api-key",
                reason: "an Immich destination needs its API key (Account Settings → API Keys): --header 'x-api-key: ${IMMICH_KEY}'")
        }
    }

    public static func make(
        _ config: RequestConfig, environment: [String: String], policy: DeliveryPolicy, cancellation: UploadCancellation
    ) throws(DestinationError) -> any Destination {
        try ImmichDestination(config: config, environment: environment, policy: policy, cancellation: cancellation)
    }

    public static func warnings(_ config: RequestConfig) -> [String] {
        guard config.scheme == "immich" else { return [] }
        return [
            "the API key travels in clear over immich:// (plain http): anyone on the network can read it and use the "
                + "Immich account; use immichs:// unless Immich runs on this machine or a network you trust"
        ]
    }
}
