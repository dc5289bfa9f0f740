import Foundation
import RelayCore
import TestSupport
import XCTest

/// What the S3 inbox's end-to-end tests share: desks (the real `relay`) on a SeaweedFS inbox at
/// `s3://inbox/field/`, delivering to a gallery, and the claims the store holds. Objects are PUT
/// with boto3 as a field relay's S3 destination leaves them (the photographer in
/// `x-amz-meta-photographer`), unless a test runs field relays itself.
enum S3InboxDesk {
    struct Claim: Decodable {
        var desk: String
        var state: String
    }

    /// A desk on `store`'s inbox, reached at `endpoint` (the store's own, or a proxy in front of it).
    static func make(_ store: SeaweedFSProcess, gallery: GalleryProcess, endpoint: String? = nil) throws -> RelayHarness {
        let desk = try RelayHarness(sendingTo: gallery, note: "gallery")
        desk.environment["AWS_ACCESS_KEY_ID"] = store.accessKey
        desk.environment["AWS_SECRET_ACCESS_KEY"] = store.secretKey
        let added = try desk.relay(
            "config", "add", "--url", "s3://inbox/field/", "--endpoint", endpoint ?? store.endpoint, "--note", "inbox")
        XCTAssertEqual(added.status, 0, added.stderr)
        return desk
    }

    /// `relay run --inbox inbox --config gallery`, listing every 0.2 s, with `extra` flags.
    static func start(_ desk: RelayHarness, _ extra: [String] = []) throws -> Subprocess {
        try Subprocess(
            TestPaths.relayExecutable,
            ["run", "--inbox", "inbox", "--config", "gallery", "--inbox-every", "0.2", "--retry-base", "0.05", "--retry-cap", "0.5"]
                + extra,
            environment: desk.environment)
    }

    /// The claims in the bucket, by the photo's key under `field/`.
    static func claims(_ store: SeaweedFSProcess) throws -> [String: Claim] {
        var found: [String: Claim] = [:]
        for object in try store.objects(in: "inbox") where object.key.hasPrefix("field/.relay/claims/") {
            let photo = String(object.key.dropFirst("field/.relay/claims/".count).dropLast(".json".count))
            found[photo] = try JSONDecoder().decode(Claim.self, from: store.body(of: object.key, in: "inbox"))
        }
        return found
    }

    /// Anna's photo put in the inbox with a `taking` claim of `desk`'s on it, last renewed long
    /// ago: the state a desk that died while taking it leaves. Returns the photo's MD5 (its ETag).
    static func putPhotoClaimedAsTaking(_ photo: Data, by desk: String, in store: SeaweedFSProcess) throws -> String {
        try store.put(photo, key: "field/anna/IMG_0001.JPG", in: "inbox", photographer: "anna")
        var md5 = MD5Digest()
        md5.update(photo)
        let claim = """
            {"desk": "\(desk)", "object": {"key": "field/anna/IMG_0001.JPG", "etag": "\(md5.hex())"},
             "state": "taking", "started": "2026-01-01T00:00:00Z", "renewed": "2026-01-01T00:00:00Z"}
            """
        try store.put(Data(claim.utf8), key: "field/.relay/claims/anna/IMG_0001.JPG.json", in: "inbox")
        return md5.hex()
    }

    /// The size of the one download in `desk`'s `RELAY_HOME/inbox-partial/`, 0 when there is none.
    static func partialBytes(_ desk: RelayHarness) -> Int64 {
        let folder = desk.home.appendingPathComponent("inbox-partial")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.compactMap {
            try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent($0).path)[.size] as? Int64
        }.max() ?? 0
    }

    /// A 3 MB photo in the inbox, and a desk reaching the store through a proxy that passes
    /// answers on at 1.5 MB/s, SIGKILLed once its download is a fifth through (the partial file
    /// seen growing, never a guessed moment). Returns the photo, the desk, its proxy and the bytes
    /// the partial file held when the desk died.
    static func deskKilledMidDownload(
        _ store: SeaweedFSProcess, gallery: GalleryProcess
    ) throws -> (photo: Data, desk: RelayHarness, proxy: CutAnswerProxy, partial: Int64) {
        let photo = JPEGFixture.bytes(count: 3_000_000, seed: 31)
        try store.put(photo, key: "field/anna/IMG_0001.JPG", in: "inbox", photographer: "anna")
        let proxy = try CutAnswerProxy(target: store.s3Port, cut: 0, bytesPerSecond: 1_500_000)
        let desk = try make(store, gallery: gallery, endpoint: "http://127.0.0.1:\(proxy.port)")
        let relay = try start(desk)
        let underWay = Subprocess.waitUntil(timeout: 30) { partialBytes(desk) >= 600_000 || !relay.isRunning }
        _ = relay.stop(signal: SIGKILL)
        XCTAssertTrue(underWay, relay.stderr)
        let partial = partialBytes(desk)
        XCTAssertLessThan(partial, Int64(photo.count), "killed before the download ended")
        XCTAssertEqual(try gallery.photos().count, 0)
        XCTAssertEqual(try claims(store)["anna/IMG_0001.JPG"]?.state, "taking")
        return (photo, desk, proxy, partial)
    }
}
