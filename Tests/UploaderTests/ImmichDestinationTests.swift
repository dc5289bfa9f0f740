import Foundation
import RelayCore
import TestSupport
import Uploader
import XCTest

/// The Immich destination against `scripts/immich_standin.py`, a real HTTP server that answers
/// as Immich's server code does (no Immich runs here; docs/IMMICH.md says what was read where):
///
/// - `server/src/controllers/asset-media.controller.ts` `uploadAsset` (`POST /api/assets`): 201
///   `{id, status: "created"}`, or 200 `{id, status: "duplicate"}` for an asset the user has;
///   `checkBulkUpload` (`POST /api/assets/bulk-upload-check`): `accept`, or `reject` with the
///   `assetId` held under that checksum.
/// - `server/src/dtos/asset-media.dto.ts`: `deviceAssetId`, `deviceId`, `fileCreatedAt`,
///   `fileModifiedAt` (ISO 8601) required, `filename` (v2); the file part `assetData`
///   (`server/src/middleware/file-upload.interceptor.ts`), whose SHA-1 the server computes.
/// - `server/src/middleware/asset-upload.interceptor.ts`: `x-immich-checksum` (SHA-1, hex or
///   base64, `server/src/utils/request.ts` `fromChecksum`) answered "duplicate" before the body.
/// - `server/src/controllers/album.controller.ts`, `services/album.service.ts`: albums by name
///   (not unique), `PUT /api/albums/{id}/assets` per id `success` or `error: "duplicate"`.
/// - `server/src/services/auth.service.ts`: 401 for a missing or unknown `x-api-key`, 403
///   'Missing required permission: asset.upload'; `asset-media.service.ts` `requireQuota`: 400
///   'Quota has been exceeded!'. A proxy's 413 (nginx's page) stands for the size wall.
final class ImmichDestinationTests: GalleryTestCase {
    private var standins: [ImmichStandinProcess] = []

    override func tearDown() {
        for standin in standins {
            standin.stop()
            try? FileManager.default.removeItem(at: standin.directory)
        }
        standins = []
        super.tearDown()
    }

    private func start(apiKeys: [String] = ["relay-test-key"], _ arguments: [String] = []) throws -> ImmichStandinProcess {
        let standin = try ImmichStandinProcess(apiKeys: apiKeys, arguments: arguments)
        standins.append(standin)
        return standin
    }

    private func destination(_ url: String, key: String, album: String? = nil) throws -> ImmichDestination {
        let config = RequestConfig(
            url: url, headers: ["x-api-key": "${IMMICH_KEY}"], options: album.map { ["album": .string($0)] } ?? [:])
        try Destinations.validate(config)
        return try ImmichDestination(
            config: config, environment: ["IMMICH_KEY": key], policy: DeliveryPolicy(backoff: Backoff(base: 0.01, cap: 0.05)),
            cancellation: UploadCancellation(), deviceId: "relay-test")
    }

    private func destination(_ standin: ImmichStandinProcess, album: String? = nil) throws -> ImmichDestination {
        try destination(standin.configURL, key: standin.apiKeys[0], album: album)
    }

    private static let capturedAt = Date(timeIntervalSince1970: 1_779_540_245.25)

    private func item(_ path: String, name: String, key: String? = nil) -> DeliveryItem {
        DeliveryItem(
            filePath: path, name: name, key: key ?? "key-\(name)", contentType: ContentType.of(fileName: name),
            template: PathTemplate.Values(
                name: name, capturedAt: Self.capturedAt, camera: "0123", serial: "0123", sequence: 42, run: "gala"))
    }

    private func sha1(_ data: Data) -> String {
        var digest = SHA1Digest()
        digest.update(Array(data))
        return digest.hex()
    }

    private func uploads(_ state: ImmichState) -> [ImmichRequest] {
        state.requests.filter { $0.method == "POST" && $0.path == "/api/assets" }
    }

    /// A stamped photo (a new header sent in place of the camera's) arrives with its fields,
    /// `x-immich-checksum` is the SHA-1 of exactly the bytes sent, the album is made once with the
    /// first photo and the second is added to it.
    func testAPhotoArrivesWithItsFieldsAndTheChecksumOfWhatWasSent() throws {
        let standin = try start()
        let album = "Gala \(UUID().uuidString.prefix(6))"
        let destination = try destination(standin, album: album)
        let first = try makePhoto("IMG_0042.JPG", size: 200_000, seed: 1)
        var stamped = item(first.path, name: "IMG_0042.JPG")
        let header: [UInt8] = [0xFF, 0xD8, 0xFF, 0xEE, 0x00, 0x04, 0x41, 0x42]
        stamped.prefix = BodyPrefix(bytes: header, replacing: 2)
        let report = destination.deliver(stamped, growing: nil, attempt: 0)
        XCTAssertEqual(report.decision, .delivered, report.problem ?? "")
        XCTAssertEqual(report.statusCode, 201)

        let second = try makePhoto("IMG_0043.JPG", size: 50_000, seed: 2)
        XCTAssertEqual(destination.deliver(item(second.path, name: "IMG_0043.JPG"), growing: nil, attempt: 0).decision, .delivered)

        let state = try standin.state()
        let sent = Data(header) + first.data.dropFirst(2)
        let asset = try XCTUnwrap(state.assets.first { $0.deviceAssetId == "key-IMG_0042.JPG" })
        XCTAssertEqual(asset.deviceId, "relay-test")
        XCTAssertEqual(asset.originalFileName, "IMG_0042.JPG")
        XCTAssertEqual(asset.fileCreatedAt, "2026-05-23T12:44:05.250Z")
        XCTAssertEqual(asset.fileModifiedAt, "2026-05-23T12:44:05.250Z")
        XCTAssertEqual(asset.bytes, sent.count)
        XCTAssertEqual(Data(base64Encoded: asset.checksum).map { $0.map { String(format: "%02x", $0) }.joined() }, sha1(sent))
        let upload = try XCTUnwrap(uploads(state).first { $0.deviceAssetId == "key-IMG_0042.JPG" })
        XCTAssertEqual(upload.checksumHeader, sha1(sent))
        XCTAssertEqual(upload.checksumHeaderMatches, true, "the header names the bytes sent, stamp included")
        XCTAssertEqual(report.answer, "HTTP 201: stored as asset \(asset.id), in album '\(album)'")

        XCTAssertEqual(state.albums.count, 1, "one album, made once")
        XCTAssertEqual(state.albums.first?.albumName, album)
        XCTAssertEqual(Set(state.albums.first?.assetIds ?? []), Set(state.assets.map(\.id)))
        XCTAssertEqual(state.requests.filter { $0.method == "POST" && $0.path == "/api/albums" }.count, 1)
        XCTAssertEqual(state.requests.filter { $0.method == "GET" && $0.path == "/api/albums" }.count, 1, "the album's id is remembered")
    }

    /// Issue 51's lost answer: Immich stored the photo but the answer was cut. The re-send asks
    /// by the checksum first, finds the asset, puts it in the album, and sends nothing again.
    func testALostAnswerIsFoundByTheReSendsQuestionAndNotSentTwice() throws {
        let standin = try start(["--lose-first", "1"])
        let album = "Lost \(UUID().uuidString.prefix(6))"
        let destination = try destination(standin, album: album)
        let photo = try makePhoto("IMG_0001.JPG", size: 120_000, seed: 3)
        let photoItem = item(photo.path, name: "IMG_0001.JPG")

        let lost = destination.deliverAskingFirst(photoItem, growing: nil, attempt: 0, progress: nil)
        guard case .retry = lost.decision else { return XCTFail("a lost answer is retried: \(lost.decision)") }
        XCTAssertEqual(try standin.state().assets.count, 1, "Immich has it already")

        let resent = destination.deliverAskingFirst(photoItem, growing: nil, attempt: 1, progress: nil)
        XCTAssertEqual(resent.decision, .delivered, resent.problem ?? "")
        let state = try standin.state()
        let asset = try XCTUnwrap(state.assets.first)
        XCTAssertEqual(state.assets.count, 1, "one asset, not two")
        XCTAssertEqual(uploads(state).count, 1, "the bytes went once")
        XCTAssertEqual(state.requests.filter { $0.path == "/api/assets/bulk-upload-check" }.count, 1)
        XCTAssertEqual(
            resent.answer, "already there: Immich has it as asset \(asset.id) (found by its checksum), in album '\(album)'")
        XCTAssertEqual(state.albums.map(\.assetIds), [[asset.id]])
    }

    /// A photo Immich has already (the same bytes under another key: a second copy on the card)
    /// is answered 200 "duplicate" and counted as delivered, saying so.
    func testADuplicateAnswerIsDelivered() throws {
        let standin = try start()
        let destination = try destination(standin)
        let photo = try makePhoto("IMG_0007.JPG", size: 30_000, seed: 7)
        XCTAssertEqual(destination.deliver(item(photo.path, name: "IMG_0007.JPG"), growing: nil, attempt: 0).statusCode, 201)
        let copy = destination.deliver(item(photo.path, name: "IMG_0007.JPG", key: "another-key"), growing: nil, attempt: 0)
        XCTAssertEqual(copy.decision, .delivered, copy.problem ?? "")
        XCTAssertEqual(copy.statusCode, 200)
        let state = try standin.state()
        XCTAssertEqual(state.assets.count, 1)
        XCTAssertEqual(copy.answer, "HTTP 200: Immich already had it (same checksum) as asset \(state.assets[0].id)")
        XCTAssertEqual(uploads(state).last?.outcome, "duplicate (checksum header)")
    }

    /// Immich's album names are not unique: of two albums of that name (two relays each made
    /// one), the oldest is used, the one every relay picks.
    func testOfTwoAlbumsOfOneNameTheOldestIsUsed() throws {
        let standin = try start()
        let album = "Twice \(UUID().uuidString.prefix(6))"
        var made: [String] = []
        for _ in 0..<2 {
            let answer = try RawHTTP.send(
                host: standin.host, port: standin.port, method: "POST", path: "/api/albums",
                headers: ["Content-Type": "application/json", "x-api-key": standin.apiKeys[0]],
                body: try JSONSerialization.data(withJSONObject: ["albumName": album]))
            XCTAssertEqual(answer.status, 201)
            let object = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
            made.append(try XCTUnwrap(object?["id"] as? String))
        }
        let oldest = try XCTUnwrap(try standin.state().albums.min { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) })
        let photo = try makePhoto("IMG_0001.JPG", size: 10_000, seed: 13)
        let report = try destination(standin, album: album).deliver(item(photo.path, name: "IMG_0001.JPG"), growing: nil, attempt: 0)
        XCTAssertEqual(report.decision, .delivered, report.problem ?? "")
        let state = try standin.state()
        XCTAssertEqual(Set(state.albums.map(\.id)), Set(made), "no third album")
        XCTAssertEqual(state.albums.first { $0.id == oldest.id }?.assetIds, state.assets.map(\.id))
        XCTAssertEqual(state.albums.first { $0.id != oldest.id }?.assetIds, [])
    }

    /// When the album step fails after the asset landed, the leg is retried and not lost: the
    /// re-send's question finds the asset and adds it to the album.
    func testAnAlbumStepThatFailsIsMadeGoodByTheReSend() throws {
        let standin = try start(["--album-fail-first", "1"])
        let album = "Retry \(UUID().uuidString.prefix(6))"
        let destination = try destination(standin, album: album)
        let first = try makePhoto("IMG_0001.JPG", size: 20_000, seed: 11)
        let second = try makePhoto("IMG_0002.JPG", size: 20_000, seed: 12)
        XCTAssertEqual(destination.deliver(item(first.path, name: "IMG_0001.JPG"), growing: nil, attempt: 0).decision, .delivered)
        let failed = destination.deliverAskingFirst(item(second.path, name: "IMG_0002.JPG"), growing: nil, attempt: 0, progress: nil)
        guard case .retry = failed.decision else { return XCTFail("\(failed.decision)") }
        XCTAssertTrue(failed.problem?.contains("not yet in album '\(album)'") == true, failed.problem ?? "")
        let resent = destination.deliverAskingFirst(item(second.path, name: "IMG_0002.JPG"), growing: nil, attempt: 1, progress: nil)
        XCTAssertEqual(resent.decision, .delivered, resent.problem ?? "")
        let state = try standin.state()
        XCTAssertEqual(state.assets.count, 2)
        XCTAssertEqual(uploads(state).count, 2, "the second photo's bytes went once")
        XCTAssertEqual(state.albums.count, 1)
        XCTAssertEqual(Set(state.albums[0].assetIds), Set(state.assets.map(\.id)))
    }

    /// 40 photos from four workers (four destinations, as a run makes them) at once into one
    /// album that does not exist yet, with one upload in five failing (retried): none lost,
    /// none twice, one album holding all.
    func testFourWorkersAtOnceFillOneAlbum() throws {
        let standin = try start(["--fail-rate", "0.2", "--seed", "5"])
        let album = "Wall \(UUID().uuidString.prefix(6))"
        let photos = try (0..<40).map { index in
            try makePhoto(String(format: "IMG_%04d.JPG", index), size: 8_000 + index * 300, seed: UInt64(100 + index)).path
        }
        let queue = LockedBox(photos)
        let url = standin.configURL
        let key = standin.apiKeys[0]
        let results = AtOnce.run(4) { _ -> [String] in
            let config = RequestConfig(url: url, headers: ["x-api-key": "${IMMICH_KEY}"], options: ["album": .string(album)])
            let destination = try ImmichDestination(
                config: config, environment: ["IMMICH_KEY": key], policy: DeliveryPolicy(backoff: Backoff(base: 0.01, cap: 0.05)),
                cancellation: UploadCancellation(), deviceId: "relay-test")
            var problems: [String] = []
            while let path = queue.withLockedValue({ $0.popLast() }) {
                let name = URL(fileURLWithPath: path).lastPathComponent
                let photo = DeliveryItem(
                    filePath: path, name: name, key: "key-\(name)", contentType: "image/jpeg",
                    template: PathTemplate.Values(
                        name: name, capturedAt: Self.capturedAt, camera: "c", serial: "s", sequence: 1, run: "wall"))
                var attempt = 0
                while true {
                    let report = destination.deliverAskingFirst(photo, growing: nil, attempt: attempt, progress: nil)
                    if report.decision == .delivered { break }
                    guard case .retry = report.decision, attempt < 20 else {
                        problems.append("\(name): \(report.decision)")
                        break
                    }
                    attempt += 1
                }
            }
            return problems
        }
        for result in results { XCTAssertEqual(try result.get(), []) }
        let state = try standin.state()
        XCTAssertEqual(state.assets.count, 40)
        XCTAssertEqual(Set(state.assets.map(\.deviceAssetId)).count, 40)
        XCTAssertEqual(state.albums.count, 1, "one album, though four workers found none at once")
        XCTAssertEqual(Set(state.albums[0].assetIds), Set(state.assets.map(\.id)))
        XCTAssertEqual(state.albums[0].assetIds.count, 40)
        XCTAssertGreaterThan(uploads(state).filter { $0.status == "500" }.count, 0, "some uploads failed and were retried")
    }

    /// A wrong key, or a key without `asset.upload`, is the user's to fix: permanent, saying how.
    func testAWrongOrLimitedKeyIsPermanentAndNamesTheFix() throws {
        let standin = try start(apiKeys: ["relay-test-key", "read-only:asset.read,album.read"])
        let photo = try makePhoto("IMG_0001.JPG", size: 10_000, seed: 21)
        let wrong = try destination(standin.configURL, key: "not-a-key").deliver(
            item(photo.path, name: "IMG_0001.JPG"), growing: nil, attempt: 0)
        guard case .permanent(let reason) = wrong.decision else { return XCTFail("\(wrong.decision)") }
        XCTAssertEqual(wrong.statusCode, 401)
        XCTAssertTrue(reason.contains("refused the API key (HTTP 401: Invalid API key)"), reason)
        XCTAssertTrue(reason.contains("Account Settings → API Keys") && reason.contains("x-api-key: ${IMMICH_KEY}"), reason)

        let limited = try destination(standin.configURL, key: "read-only").deliver(
            item(photo.path, name: "IMG_0001.JPG"), growing: nil, attempt: 0)
        guard case .permanent(let refusal) = limited.decision else { return XCTFail("\(limited.decision)") }
        XCTAssertEqual(limited.statusCode, 403)
        XCTAssertTrue(refusal.contains("Missing required permission: asset.upload") && refusal.contains("give the key"), refusal)
        XCTAssertEqual(try standin.state().assets, [])
    }

    /// A body larger than the proxy in front of Immich takes (413) says the photo's size; a
    /// full quota says so too. Both permanent.
    func testTooLargeAndAFullQuotaArePermanentAndSayWhy() throws {
        let standin = try start(["--max-body", "50000"])
        let destination = try destination(standin)
        let photo = try makePhoto("IMG_0001.JPG", size: 100_000, seed: 31)
        let large = destination.deliver(item(photo.path, name: "IMG_0001.JPG"), growing: nil, attempt: 0)
        guard case .permanent(let reason) = large.decision else { return XCTFail("\(large.decision) \(large.problem ?? "")") }
        XCTAssertEqual(large.statusCode, 413)
        XCTAssertTrue(reason.contains("the photo is 0.1 MB (100000 bytes)") && reason.contains("client_max_body_size"), reason)

        try standin.setFaults(["maxBody": NSNull(), "quota": 50_000])
        let full = destination.deliver(item(photo.path, name: "IMG_0001.JPG"), growing: nil, attempt: 0)
        guard case .permanent(let quota) = full.decision else { return XCTFail("\(full.decision)") }
        XCTAssertTrue(quota.contains("storage quota is used up (HTTP 400: Quota has been exceeded!)"), quota)
        XCTAssertEqual(try standin.state().assets, [])
    }

    /// A stand-in that is down is retried (transport), on the upload and on the question alike.
    func testAServerThatIsDownIsRetried() throws {
        let port = try XCTUnwrap(ClosedPort.make())
        let destination = try destination("immich://127.0.0.1:\(port)/", key: "k")
        let photo = try makePhoto("IMG_0001.JPG", size: 10_000, seed: 41)
        let report = destination.deliver(item(photo.path, name: "IMG_0001.JPG"), growing: nil, attempt: 0)
        guard case .retry = report.decision else { return XCTFail("\(report.decision)") }
        XCTAssertEqual(report.transportError?.category, .couldNotConnect)
        guard case .unanswered(let asked) = destination.probe(item(photo.path, name: "IMG_0001.JPG"), attempt: 1),
            case .retry = asked.decision
        else {
            return XCTFail("the question before a re-send is retried too")
        }
    }

    /// A URL that leads to another web server (here relay's test gallery) is said to be no
    /// Immich server (its `GET /api/server/ping` does not answer "pong" either).
    func testAURLThatIsNotImmichSaysSo() throws {
        let gallery = try startGallery()
        let destination = try destination("immich://\(gallery.host):\(gallery.port)/", key: "k")
        let photo = try makePhoto("IMG_0001.JPG", size: 10_000, seed: 51)
        let report = destination.deliver(item(photo.path, name: "IMG_0001.JPG"), growing: nil, attempt: 0)
        guard case .permanent(let reason) = report.decision else { return XCTFail("\(report.decision)") }
        XCTAssertTrue(reason.contains("is not an Immich server (POST /api/assets answered HTTP 404"), reason)
        XCTAssertTrue(reason.contains("give the address Immich is opened at"), reason)
        XCTAssertEqual(try gallery.photos(), [])
    }

    /// The config's rules: an API key header, no `/api` in the URL, the album a field of its
    /// own; a warning for a key in clear over `immich://`.
    func testConfigRulesAndTheWarningForPlainHTTP() throws {
        func message(_ config: RequestConfig) -> String {
            do {
                try Destinations.validate(config)
                return ""
            } catch {
                return error.description
            }
        }
        let key = ["x-api-key": "${IMMICH_KEY}"]
        XCTAssertTrue(try Destinations.kind(of: RequestConfig(url: "immichs://photos.example/")) == ImmichDestination.self)
        XCTAssertEqual(message(RequestConfig(url: "immichs://photos.example/", headers: key, options: ["album": "Gala"])), "")
        XCTAssertTrue(message(RequestConfig(url: "immichs://photos.example/")).contains("--header 'x-api-key: ${IMMICH_KEY}'"))
        XCTAssertTrue(message(RequestConfig(url: "immichs://photos.example/api", headers: key)).contains("without /api"))
        XCTAssertTrue(message(RequestConfig(url: "immichs://me@photos.example/", headers: key)).contains("API key, not a user"))
        XCTAssertTrue(message(RequestConfig(url: "immichs://photos.example/", headers: key, options: ["album": ""])).contains("album"))
        XCTAssertTrue(message(RequestConfig(url: "https://x.example/", options: ["album": "a"])).contains("album is for immich://"))

        let server = try ImmichServer(config: RequestConfig(url: "immichs://photos.example:2283/immich/"))
        XCTAssertEqual(server.url("/assets"), "https://photos.example:2283/immich/api/assets")
        XCTAssertEqual(server.displayName, "immichs://photos.example:2283/immich/")
        XCTAssertEqual(Destinations.warnings(RequestConfig(url: "immichs://photos.example/", headers: key)), [])
        let warnings = Destinations.warnings(RequestConfig(url: "immich://photos.example/", headers: key))
        XCTAssertEqual(warnings.count, 1)
        XCTAssertTrue(warnings.first?.contains("the API key travels in clear") == true, "\(warnings)")
        XCTAssertEqual(Destinations.fields.first { $0.field.name == "album" }?.schemes, ["immich", "immichs"])
        XCTAssertEqual(ImmichAPI.deviceId(hostName: "desk-3.venue.lan"), "relay-desk-3")
    }
}
