import Foundation
import RelayCore
import TestSupport
import XCTest

/// `relay run --inbox NOTE`: a desk taking what field relays put in a SeaweedFS bucket (objects
/// PUT with boto3 as a field relay's S3 destination leaves them: the photographer in
/// `x-amz-meta-photographer`) and delivering each to its gallery once.
final class S3InboxDeskTests: XCTestCase {
    private struct Claim: Decodable {
        var desk: String
        var state: String
    }

    /// A desk on `store`'s inbox, reached at `endpoint` (the store's own, or a proxy in front of it).
    private func makeDesk(_ store: SeaweedFSProcess, gallery: GalleryProcess, endpoint: String? = nil) throws -> RelayHarness {
        let desk = try RelayHarness(sendingTo: gallery, note: "gallery")
        desk.environment["AWS_ACCESS_KEY_ID"] = store.accessKey
        desk.environment["AWS_SECRET_ACCESS_KEY"] = store.secretKey
        let added = try desk.relay(
            "config", "add", "--url", "s3://inbox/field/", "--endpoint", endpoint ?? store.endpoint, "--note", "inbox")
        XCTAssertEqual(added.status, 0, added.stderr)
        return desk
    }

    /// Anna's photo put in the inbox with a `taking` claim of `desk`'s on it, last renewed long
    /// ago: the state a desk that died while taking it leaves. Returns the photo's MD5 (its ETag).
    private func putPhotoClaimedAsTaking(
        _ photo: Data, by desk: String, in store: SeaweedFSProcess
    ) throws -> String {
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

    private func startDesk(_ desk: RelayHarness) throws -> Subprocess {
        try startDesk(desk, [])
    }

    private func startDesk(_ desk: RelayHarness, _ extra: [String]) throws -> Subprocess {
        try Subprocess(
            TestPaths.relayExecutable,
            ["run", "--inbox", "inbox", "--config", "gallery", "--inbox-every", "0.2", "--retry-base", "0.05", "--retry-cap", "0.5"]
                + extra,
            environment: desk.environment)
    }

    /// The size of the one download in `desk`'s `RELAY_HOME/inbox-partial/`, 0 when there is none.
    private func partialBytes(_ desk: RelayHarness) -> Int64 {
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
    private func deskKilledMidDownload(
        _ store: SeaweedFSProcess, gallery: GalleryProcess
    ) throws -> (photo: Data, desk: RelayHarness, proxy: CutAnswerProxy, partial: Int64) {
        let photo = JPEGFixture.bytes(count: 3_000_000, seed: 31)
        try store.put(photo, key: "field/anna/IMG_0001.JPG", in: "inbox", photographer: "anna")
        let proxy = try CutAnswerProxy(target: store.s3Port, cut: 0, bytesPerSecond: 1_500_000)
        let desk = try makeDesk(store, gallery: gallery, endpoint: "http://127.0.0.1:\(proxy.port)")
        let relay = try startDesk(desk)
        let underWay = Subprocess.waitUntil(timeout: 30) { self.partialBytes(desk) >= 600_000 || !relay.isRunning }
        _ = relay.stop(signal: SIGKILL)
        XCTAssertTrue(underWay, relay.stderr)
        let partial = partialBytes(desk)
        XCTAssertLessThan(partial, Int64(photo.count), "killed before the download ended")
        XCTAssertEqual(try gallery.photos().count, 0)
        XCTAssertEqual(try claims(store)["anna/IMG_0001.JPG"]?.state, "taking")
        return (photo, desk, proxy, partial)
    }

    /// The claims in the bucket, by the photo's key under `field/`.
    private func claims(_ store: SeaweedFSProcess) throws -> [String: Claim] {
        var found: [String: Claim] = [:]
        for object in try store.objects(in: "inbox") where object.key.hasPrefix("field/.relay/claims/") {
            let photo = String(object.key.dropFirst("field/.relay/claims/".count).dropLast(".json".count))
            found[photo] = try JSONDecoder().decode(Claim.self, from: store.body(of: object.key, in: "inbox"))
        }
        return found
    }

    func testEachPhotoReachesTheGalleryOnceWithItsPhotographerAndItsClaimEndsDone() throws {
        let store = try SeaweedFSProcess()
        defer { store.stop() }
        try store.createBucket("inbox")
        let gallery = try GalleryProcess()
        let desk = try makeDesk(store, gallery: gallery)
        let photos = [
            "anna/IMG_0001.JPG": (JPEGFixture.bytes(count: 40_000, seed: 1), "anna"),
            "ben/IMG_0002.JPG": (JPEGFixture.bytes(count: 90_000, seed: 2), "Ben López"),
            "anna/IMG_0003.JPG": (JPEGFixture.bytes(count: 25_000, seed: 3), "anna"),
        ]
        for (key, (body, photographer)) in photos {
            try store.put(body, key: "field/" + key, in: "inbox", photographer: photographer)
        }

        let relay = try startDesk(desk)
        defer { _ = relay.stop(signal: SIGKILL) }
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 60) { ((try? gallery.photos().count) ?? 0) >= 3 || !relay.isRunning }, relay.stderr)

        // Photos put after the first listings: one whole, one cut short. The whole one arriving
        // means later listings ran, and took none of the first three again.
        let late = JPEGFixture.bytes(count: 60_000, seed: 4)
        try store.put(late, key: "field/ben/IMG_0004.JPG", in: "inbox", photographer: "Ben López")
        let whole = JPEGFixture.bytes(count: 60_000, seed: 5)
        try store.put(whole.prefix(whole.count / 2), key: "field/anna/IMG_0005.JPG", in: "inbox", photographer: "anna")
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 60) {
                ((try? gallery.photos().count) ?? 0) >= 4 && relay.stderr.contains("IMG_0005.JPG is cut short") || !relay.isRunning
            }, relay.stderr)
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) { ((try? self.claims(store).values.filter { $0.state == "done" }.count) ?? 0) >= 4 },
            "\(String(describing: try? claims(store)))")
        XCTAssertEqual(relay.stop(), 0, relay.stderr)

        let delivered = try gallery.photos()
        XCTAssertEqual(delivered.map(\.name).sorted(), ["IMG_0001.JPG", "IMG_0002.JPG", "IMG_0003.JPG", "IMG_0004.JPG"], "each once")
        let sent = Dictionary(
            uniqueKeysWithValues: (photos.map { ($0.key, $0.value.0) } + [("ben/IMG_0004.JPG", late)]).map {
                (String($0.0.split(separator: "/").last ?? ""), $0.1)
            })
        for photo in delivered { XCTAssertEqual(photo.sha256, sent[photo.name].map(SHA256.hex), photo.name) }
        let credited = Dictionary(uniqueKeysWithValues: try desk.history().filter(\.success).map { ($0.fileName, $0.photographer) })
        XCTAssertEqual(
            credited,
            ["IMG_0001.JPG": "anna", "IMG_0002.JPG": "Ben López", "IMG_0003.JPG": "anna", "IMG_0004.JPG": "Ben López"])
        let stored = try claims(store)
        XCTAssertEqual(
            stored.filter { $0.value.state == "done" }.keys.sorted(),
            ["anna/IMG_0001.JPG", "anna/IMG_0003.JPG", "ben/IMG_0002.JPG", "ben/IMG_0004.JPG"])
        XCTAssertNil(stored["anna/IMG_0005.JPG"], "the refused photo's claim is released for a corrected upload")
        XCTAssertTrue(relay.stderr.contains("IMG_0005.JPG: the download did not check"), "taken twice before it is refused")
        XCTAssertEqual(Set(stored.values.map(\.desk)).count, 1, "one desk")
    }

    /// `--inbox-delete`: a photo leaves the bucket once both of the desk's destinations have it;
    /// one that a destination refused for good stays in the inbox, and every claim ends done.
    func testInboxDeleteRemovesOnlyWhatEveryDestinationHas() throws {
        let store = try SeaweedFSProcess()
        defer { store.stop() }
        try store.createBucket("inbox")
        let gallery = try GalleryProcess()
        let archive = try GalleryProcess(arguments: ["--reject-name", "IMG_0002"])
        let desk = try makeDesk(store, gallery: gallery)
        XCTAssertEqual(try desk.relay("config", "add", "--url", archive.uploadURL, "--note", "archive").status, 0)
        for number in 1...3 {
            let body = JPEGFixture.bytes(count: 30_000, seed: UInt64(number))
            try store.put(body, key: "field/anna/IMG_000\(number).JPG", in: "inbox", photographer: "anna")
        }
        let relay = try Subprocess(
            TestPaths.relayExecutable,
            [
                "run", "--inbox", "inbox", "--config", "gallery", "--config", "archive", "--inbox-delete", "--inbox-every", "0.2",
                "--retry-base", "0.05", "--retry-cap", "0.5",
            ],
            environment: desk.environment)
        defer { _ = relay.stop(signal: SIGKILL) }
        let photos = { try store.objects(in: "inbox").map(\.key).filter { !$0.hasPrefix("field/.relay/") } }
        let refused = { try desk.history().contains { !$0.success && $0.fileName == "IMG_0002.JPG" } }
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 60) {
                ((try? archive.photos().count) ?? 0) >= 2 && (try? refused()) == true || !relay.isRunning
            }, relay.stderr)

        // A photo put after the refusal, deleted in turn: the listings after the refusal ran, and
        // left the refused photo where it is.
        try store.put(JPEGFixture.bytes(count: 30_000, seed: 4), key: "field/anna/IMG_0004.JPG", in: "inbox", photographer: "anna")
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 60) { (try? photos()) == ["field/anna/IMG_0002.JPG"] || !relay.isRunning },
            "\(String(describing: try? photos()))\n\(relay.stderr)")
        XCTAssertEqual(relay.stderr.components(separatedBy: "every destination has it; deleted from the inbox").count - 1, 3, relay.stderr)
        XCTAssertEqual(try gallery.photos().map(\.name).sorted(), ["IMG_0001.JPG", "IMG_0002.JPG", "IMG_0003.JPG", "IMG_0004.JPG"])
        XCTAssertEqual(try archive.photos().map(\.name).sorted(), ["IMG_0001.JPG", "IMG_0003.JPG", "IMG_0004.JPG"])
        XCTAssertEqual(
            try claims(store).values.map(\.state), Array(repeating: "done", count: 4), "the claims stay: no desk takes these bytes again")
        XCTAssertEqual(relay.stop(), 0, relay.stderr)
        XCTAssertEqual(try photos(), ["field/anna/IMG_0002.JPG"])
    }

    /// Two desks on one inbox, started together on the same photos: each photo reaches the
    /// gallery once across both, and its one claim ends done.
    func testTwoDesksTakeEachPhotoOnceBetweenThem() throws {
        let store = try SeaweedFSProcess()
        defer { store.stop() }
        try store.createBucket("inbox")
        let gallery = try GalleryProcess()
        var sent: [String: Data] = [:]
        for number in 1...12 {
            let name = String(format: "IMG_%04d.JPG", number)
            sent[name] = JPEGFixture.bytes(count: 20_000 + number * 3_001, seed: UInt64(number))
            try store.put(sent[name] ?? Data(), key: "field/anna/" + name, in: "inbox", photographer: "anna")
        }
        let deskA = try makeDesk(store, gallery: gallery)
        let deskB = try makeDesk(store, gallery: gallery)
        let relayA = try startDesk(deskA)
        defer { _ = relayA.stop(signal: SIGKILL) }
        let relayB = try startDesk(deskB)
        defer { _ = relayB.stop(signal: SIGKILL) }
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 90) {
                ((try? self.claims(store).values.filter { $0.state == "done" }.count) ?? 0) >= 12 || !relayA.isRunning
                    || !relayB.isRunning
            }, relayA.stderr + relayB.stderr)
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 60) {
                ((try? deskA.status().queued.count) ?? 1) == 0 && ((try? deskB.status().queued.count) ?? 1) == 0
            }, "both spools empty")
        XCTAssertEqual(relayA.stop(), 0, relayA.stderr)
        XCTAssertEqual(relayB.stop(), 0, relayB.stderr)

        let delivered = try gallery.photos()
        XCTAssertEqual(delivered.map(\.name).sorted(), sent.keys.sorted(), "each photo once across both desks")
        for photo in delivered { XCTAssertEqual(photo.sha256, sent[photo.name].map(SHA256.hex), photo.name) }
        let byA = try deskA.history().filter(\.success).map(\.fileName)
        let byB = try deskB.history().filter(\.success).map(\.fileName)
        XCTAssertEqual((byA + byB).sorted(), sent.keys.sorted(), "A took \(byA), B took \(byB)")
        let stored = try claims(store)
        XCTAssertEqual(stored.count, 12)
        XCTAssertTrue(stored.values.allSatisfy { $0.state == "done" }, "\(stored)")
    }

    /// The same key uploaded again: with the same bytes (the same ETag) it is not a new photo;
    /// with other bytes it is, and the desk says so.
    func testAKeyUploadedAgainIsANewPhotoOnlyWithOtherBytes() throws {
        let store = try SeaweedFSProcess()
        defer { store.stop() }
        try store.createBucket("inbox")
        let gallery = try GalleryProcess()
        let desk = try makeDesk(store, gallery: gallery)
        let first = JPEGFixture.bytes(count: 30_000, seed: 1)
        try store.put(first, key: "field/anna/IMG_0001.JPG", in: "inbox", photographer: "anna")
        let relay = try startDesk(desk)
        defer { _ = relay.stop(signal: SIGKILL) }
        XCTAssertTrue(Subprocess.waitUntil(timeout: 60) { ((try? gallery.photos().count) ?? 0) >= 1 || !relay.isRunning }, relay.stderr)

        try store.put(first, key: "field/anna/IMG_0001.JPG", in: "inbox", photographer: "anna")
        let second = JPEGFixture.bytes(count: 30_000, seed: 2)
        try store.put(second, key: "field/anna/IMG_0002.JPG", in: "inbox", photographer: "anna")
        XCTAssertTrue(Subprocess.waitUntil(timeout: 60) { ((try? gallery.photos().count) ?? 0) >= 2 || !relay.isRunning }, relay.stderr)
        let other = JPEGFixture.bytes(count: 30_000, seed: 3)
        try store.put(other, key: "field/anna/IMG_0001.JPG", in: "inbox", photographer: "anna")
        XCTAssertTrue(Subprocess.waitUntil(timeout: 60) { ((try? gallery.photos().count) ?? 0) >= 3 || !relay.isRunning }, relay.stderr)
        XCTAssertEqual(relay.stop(), 0, relay.stderr)

        XCTAssertEqual(try gallery.photos().map(\.sha256).sorted(), [first, second, other].map(SHA256.hex).sorted())
        XCTAssertTrue(relay.stderr.contains("IMG_0001.JPG was uploaded again with other bytes"), relay.stderr)
    }

    /// The store's answers lost on the way (the claim reads' 404s, as a venue's network drops
    /// them), then the desk stopped and started again: it waits and asks again, and takes
    /// nothing twice, neither before nor after the restart.
    func testLostAnswersAndARestartNeitherLoseNorRepeatAPhoto() throws {
        let store = try SeaweedFSProcess()
        defer { store.stop() }
        try store.createBucket("inbox")
        let proxy = try CutAnswerProxy(target: store.s3Port, status: 404, cut: 3)
        defer { proxy.stop() }
        let gallery = try GalleryProcess()
        let desk = try RelayHarness(sendingTo: gallery, note: "gallery")
        desk.environment["AWS_ACCESS_KEY_ID"] = store.accessKey
        desk.environment["AWS_SECRET_ACCESS_KEY"] = store.secretKey
        let added = try desk.relay(
            "config", "add", "--url", "s3://inbox/field/", "--endpoint", "http://127.0.0.1:\(proxy.port)", "--note", "inbox")
        XCTAssertEqual(added.status, 0, added.stderr)
        var sent: [String: Data] = [:]
        for number in 1...3 {
            let name = String(format: "IMG_%04d.JPG", number)
            sent[name] = JPEGFixture.bytes(count: 30_000 + number * 5_003, seed: UInt64(number))
            try store.put(sent[name] ?? Data(), key: "field/anna/" + name, in: "inbox", photographer: "anna")
        }
        var relay = try startDesk(desk)
        defer { _ = relay.stop(signal: SIGKILL) }
        XCTAssertTrue(Subprocess.waitUntil(timeout: 60) { ((try? gallery.photos().count) ?? 0) >= 3 || !relay.isRunning }, relay.stderr)
        XCTAssertEqual(relay.stop(), 0, relay.stderr)
        XCTAssertEqual(proxy.cuts, 3, proxy.output)
        XCTAssertTrue(relay.stderr.contains("relay tries again"), relay.stderr)

        relay = try startDesk(desk)
        sent["IMG_0004.JPG"] = JPEGFixture.bytes(count: 50_000, seed: 4)
        try store.put(sent["IMG_0004.JPG"] ?? Data(), key: "field/anna/IMG_0004.JPG", in: "inbox", photographer: "anna")
        XCTAssertTrue(Subprocess.waitUntil(timeout: 60) { ((try? gallery.photos().count) ?? 0) >= 4 || !relay.isRunning }, relay.stderr)
        XCTAssertEqual(relay.stop(), 0, relay.stderr)

        let delivered = try gallery.photos()
        XCTAssertEqual(delivered.map(\.name).sorted(), sent.keys.sorted(), "each once, across the restart")
        XCTAssertEqual(Set(try claims(store).values.map(\.desk)).count, 1, "the restarted desk is the same desk")
    }

    /// A desk on a store without conditional writes could take a photo another desk takes: the
    /// run ends at start with the check's words, and an inbox NOTE that is no S3 config is refused
    /// before anything starts.
    func testAStoreWithoutConditionalWritesAndANonS3ConfigAreRefused() throws {
        let store = try MotoS3Process(conditionalWrites: .notImplemented)
        defer { store.stop() }
        let gallery = try GalleryProcess()
        let desk = try RelayHarness(sendingTo: gallery, note: "gallery")
        desk.environment["AWS_ACCESS_KEY_ID"] = store.accessKey
        desk.environment["AWS_SECRET_ACCESS_KEY"] = store.secretKey
        let added = try desk.relay("config", "add", "--url", "s3://inbox/field/", "--endpoint", store.endpoint, "--note", "inbox")
        XCTAssertEqual(added.status, 0, added.stderr)

        let refused = try desk.relay("run", "--inbox", "inbox", "--config", "gallery")
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("this store does not do conditional writes"), refused.stderr)

        let notS3 = try desk.relay("run", "--inbox", "gallery")
        XCTAssertEqual(notS3.status, 2, notS3.stderr)
        XCTAssertTrue(notS3.stderr.contains("--inbox gallery is not an S3 config"), notS3.stderr)
    }

    /// A desk that takes long over a photo (here it waits for room in a full spool while its
    /// one-photo spool delivers to a slow gallery) renews its claim, so a second desk with the
    /// same 1 s timeout leaves it: each photo once, nothing taken over.
    func testASlowTakeRenewsItsClaimAndIsNotTakenOver() throws {
        let store = try SeaweedFSProcess()
        defer { store.stop() }
        try store.createBucket("inbox")
        let gallery = try GalleryProcess(arguments: ["--delay", "2.5"])
        let deskA = try makeDesk(store, gallery: gallery)
        let deskB = try makeDesk(store, gallery: gallery)
        let photos = (1...2).map { JPEGFixture.bytes(count: 30_000, seed: UInt64($0)) }
        for (index, body) in photos.enumerated() {
            try store.put(body, key: "field/anna/IMG_000\(index + 1).JPG", in: "inbox", photographer: "anna")
        }
        let options = [
            "--inbox", "inbox", "--config", "gallery", "--inbox-every", "0.2", "--inbox-claim-timeout", "1s", "--retry-base",
            "0.05", "--retry-cap", "0.5",
        ]
        let relayA = try Subprocess(
            TestPaths.relayExecutable, ["run", "--spool-max-photos", "1"] + options, environment: deskA.environment)
        defer { _ = relayA.stop(signal: SIGKILL) }
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 60) { (try? self.claims(store)["anna/IMG_0002.JPG"]?.state) == "taking" || !relayA.isRunning },
            relayA.stderr)
        let started = Date()
        let relayB = try Subprocess(TestPaths.relayExecutable, ["run"] + options, environment: deskB.environment)
        defer { _ = relayB.stop(signal: SIGKILL) }

        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 60) {
                (try? self.claims(store).values.filter { $0.state == "done" }.count) == 2 || !relayA.isRunning
            }, relayA.stderr)
        // Without renewals desk B would have taken the claim over 1 s after its last write.
        XCTAssertGreaterThan(Date().timeIntervalSince(started), 2, "the second photo waited past the timeout")
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) { ((try? gallery.photos().count) ?? 0) >= 2 || !relayA.isRunning }, relayA.stderr)
        XCTAssertEqual(relayB.stop(), 0, relayB.stderr)
        XCTAssertEqual(relayA.stop(), 0, relayA.stderr)
        XCTAssertTrue(relayB.stderr.contains("IMG_0002.JPG: desk"), relayB.stderr)
        XCTAssertFalse(relayB.stderr.contains("takes it over"), relayB.stderr)
        XCTAssertFalse(relayA.stderr.contains("took its claim over"), relayA.stderr)
        XCTAssertEqual(try gallery.photos().map(\.sha256).sorted(), photos.map(SHA256.hex).sorted(), "each once")
        XCTAssertEqual(Set(try claims(store).values.map(\.desk)).count, 1, "desk A took both")
    }

    /// Relay to relay through the bucket: two field relays (one losing the answers to its PUTs,
    /// found by its HEAD before a re-send) into one bucket, and two desks on it (one losing every
    /// third answer: listings, claims, downloads, done writes). Each photo reaches the gallery
    /// once (one upload request each, one done claim each, in one desk's history), credited to its
    /// field relay's `--photographer`.
    func testTwoFieldRelaysAndTwoDesksThroughLostAnswersEachPhotoOnce() throws {
        let store = try SeaweedFSProcess()
        defer { store.stop() }
        try store.createBucket("inbox")
        let fieldProxy = try CutAnswerProxy(target: store.s3Port, status: 200, cut: 2)
        defer { fieldProxy.stop() }
        // Every third 200: past the startup check's first PUT, then listings, claims, downloads
        // and done writes as they come.
        let deskProxy = try CutAnswerProxy(target: store.s3Port, status: 200, cut: 6, every: 3)
        defer { deskProxy.stop() }
        let gallery = try GalleryProcess()
        let desks = [try RelayHarness(sendingTo: gallery, note: "gallery"), try RelayHarness(sendingTo: gallery, note: "gallery")]
        let fields = [try RelayHarness(), try RelayHarness()]
        for harness in desks + fields {
            harness.environment["AWS_ACCESS_KEY_ID"] = store.accessKey
            harness.environment["AWS_SECRET_ACCESS_KEY"] = store.secretKey
        }
        for (desk, endpoint) in zip(desks, ["http://127.0.0.1:\(deskProxy.port)", store.endpoint]) {
            let inbox = try desk.relay("config", "add", "--url", "s3://inbox/field/", "--endpoint", endpoint, "--note", "inbox")
            XCTAssertEqual(inbox.status, 0, inbox.stderr)
        }
        for (field, endpoint) in zip(fields, ["http://127.0.0.1:\(fieldProxy.port)", store.endpoint]) {
            let bucket = try field.relay("config", "add", "--url", "s3://inbox/field/{photographer}/{name}", "--endpoint", endpoint)
            XCTAssertEqual(bucket.status, 0, bucket.stderr)
        }

        let deskRuns = try desks.map(startDesk)
        defer { for run in deskRuns { _ = run.stop(signal: SIGKILL) } }
        let fieldRuns = [try fields[0].startRun(["--photographer", "Ana López"]), try fields[1].startRun(["--photographer", "Ben"])]
        defer { for run in fieldRuns { _ = run.stop(signal: SIGKILL) } }
        let ana = try fields[0].dropPhotos(4, prefix: "ANA_")
        let ben = try fields[1].dropPhotos(4, prefix: "BEN_", seed: 100)
        let running = { (deskRuns + fieldRuns).allSatisfy(\.isRunning) }

        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 90) { (try? self.claims(store).values.filter { $0.state == "done" }.count) == 8 || !running() },
            (deskRuns + fieldRuns).map(\.stderr).joined(separator: "\n"))
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { ((try? gallery.photos().count) ?? 0) >= 8 }, deskRuns.map(\.stderr).joined())
        for run in fieldRuns + deskRuns { XCTAssertEqual(run.stop(), 0, run.stderr) }
        XCTAssertEqual(fieldProxy.cuts, 2, fieldProxy.output)
        XCTAssertEqual(deskProxy.cuts, 6, deskProxy.output)
        let sent = ana.merging(ben) { first, _ in first }
        XCTAssertEqual(try gallery.photos().map(\.sha256).sorted(), sent.values.map(SHA256.hex).sorted(), "each once")
        XCTAssertEqual(try gallery.uploadRequests().count, 8, "none taken twice: one upload request each")
        XCTAssertEqual(try claims(store).count, 8)
        let taken = try desks.map { Set(try $0.history().filter(\.success).map(\.fileName)) }
        XCTAssertEqual(taken[0].union(taken[1]), Set(sent.keys))
        XCTAssertTrue(taken[0].isDisjoint(with: taken[1]), "\(taken)")
        for run in deskRuns {
            XCTAssertFalse(run.stderr.contains("may reach the gallery twice"), run.stderr)
            XCTAssertFalse(run.stderr.contains("took its claim over"), run.stderr)
        }
        for field in fields {
            XCTAssertEqual(try field.history().filter(\.success).count, 4, "each once from the field: a lost PUT answer is found by HEAD")
        }
        let credited = try desks.flatMap { try $0.history().filter(\.success) }
        XCTAssertEqual(Set(credited.filter { $0.fileName.hasPrefix("ANA_") }.map(\.photographer)), ["Ana López"])
        XCTAssertEqual(Set(credited.filter { $0.fileName.hasPrefix("BEN_") }.map(\.photographer)), ["Ben"])
        XCTAssertEqual(
            try store.objects(in: "inbox").map(\.key).filter { !$0.hasPrefix("field/.relay/") }.sorted(),
            (ana.keys.map { "field/Ana_L_pez/" + $0 } + ben.keys.map { "field/Ben/" + $0 }).sorted(),
            "the key path-safe, the metadata the name")
    }

    /// A desk that died while taking a photo left its claim `taking`: once the claim has gone
    /// unrenewed for `--inbox-claim-timeout`, this desk takes it over and delivers the photo.
    func testADeadDesksClaimIsTakenOverAfterTheTimeout() throws {
        let store = try SeaweedFSProcess()
        defer { store.stop() }
        try store.createBucket("inbox")
        let gallery = try GalleryProcess()
        let desk = try makeDesk(store, gallery: gallery)
        let photo = JPEGFixture.bytes(count: 30_000, seed: 1)
        _ = try putPhotoClaimedAsTaking(photo, by: "desk-dead", in: store)

        let relay = try Subprocess(
            TestPaths.relayExecutable,
            [
                "run", "--inbox", "inbox", "--config", "gallery", "--inbox-every", "0.2", "--inbox-claim-timeout", "2s",
                "--retry-base", "0.05", "--retry-cap", "0.5",
            ], environment: desk.environment)
        defer { _ = relay.stop(signal: SIGKILL) }
        XCTAssertTrue(Subprocess.waitUntil(timeout: 60) { ((try? gallery.photos().count) ?? 0) >= 1 || !relay.isRunning }, relay.stderr)
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) { (try? self.claims(store)["anna/IMG_0001.JPG"]?.state) == "done" },
            "\(String(describing: try? claims(store)))")
        XCTAssertEqual(relay.stop(), 0, relay.stderr)
        XCTAssertTrue(relay.stderr.contains("desk desk-dead has it (taking)"), relay.stderr)
        XCTAssertTrue(relay.stderr.contains("desk desk-dead's claim went unrenewed"), relay.stderr)
        XCTAssertEqual(try gallery.photos().map(\.sha256), [SHA256.hex(photo)])
        XCTAssertNotEqual(try claims(store)["anna/IMG_0001.JPG"]?.desk, "desk-dead")
    }

    /// A desk that died mid-download (its own claim `taking`, half the photo in
    /// `RELAY_HOME/inbox-partial/`) goes on with its claim when it starts again, without waiting
    /// out the timeout, and resumes the download with a Range: the photo arrives whole.
    func testARestartedDeskResumesItsOwnCutDownload() throws {
        let store = try SeaweedFSProcess()
        defer { store.stop() }
        try store.createBucket("inbox")
        let gallery = try GalleryProcess()
        let desk = try makeDesk(store, gallery: gallery)
        let photo = JPEGFixture.bytes(count: 200_000, seed: 7)
        try FileManager.default.createDirectory(at: desk.home, withIntermediateDirectories: true)
        try Data(#"{"desk": "desk-me"}"#.utf8).write(to: desk.home.appendingPathComponent("inbox-desk.json"))
        let etag = try putPhotoClaimedAsTaking(photo, by: "desk-me", in: store)
        var name = SHA256Digest()
        name.update(Array("field/anna/IMG_0001.JPG\u{0}\(etag)".utf8))
        let partials = desk.home.appendingPathComponent("inbox-partial")
        try FileManager.default.createDirectory(at: partials, withIntermediateDirectories: true)
        try photo.prefix(80_000).write(to: partials.appendingPathComponent(name.hex() + ".part"))

        let relay = try startDesk(desk)
        defer { _ = relay.stop(signal: SIGKILL) }
        XCTAssertTrue(Subprocess.waitUntil(timeout: 60) { ((try? gallery.photos().count) ?? 0) >= 1 || !relay.isRunning }, relay.stderr)
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) { (try? self.claims(store)["anna/IMG_0001.JPG"]?.state) == "done" },
            "\(String(describing: try? claims(store)))")
        XCTAssertEqual(relay.stop(), 0, relay.stderr)
        XCTAssertTrue(relay.stderr.contains("download resumed at byte 80000"), relay.stderr)
        XCTAssertEqual(try gallery.photos().map(\.sha256), [SHA256.hex(photo)])
        XCTAssertEqual(try claims(store)["anna/IMG_0001.JPG"]?.desk, "desk-me")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: partials.path), [], "the partial download is gone")
    }

    /// A desk SIGKILLed in the middle of a slow download, started again on the same RELAY_HOME:
    /// it goes on with its own claim and resumes the download where the partial file ends; the
    /// photo reaches the gallery once, whole.
    func testADeskKilledMidDownloadResumesItWhenStartedAgain() throws {
        let store = try SeaweedFSProcess()
        defer { store.stop() }
        try store.createBucket("inbox")
        let gallery = try GalleryProcess()
        let (photo, desk, proxy, partial) = try deskKilledMidDownload(store, gallery: gallery)
        defer { proxy.stop() }

        let relay = try startDesk(desk)
        defer { _ = relay.stop(signal: SIGKILL) }
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) { (try? self.claims(store)["anna/IMG_0001.JPG"]?.state) == "done" || !relay.isRunning },
            relay.stderr)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { ((try? desk.status().queued.count) ?? 1) == 0 }, "spool empty")
        XCTAssertEqual(relay.stop(), 0, relay.stderr)
        XCTAssertTrue(relay.stderr.contains("download resumed at byte \(partial)"), relay.stderr)
        XCTAssertEqual(try gallery.photos().map(\.sha256), [SHA256.hex(photo)], "once, whole")
        XCTAssertEqual(partialBytes(desk), 0, "the partial download is gone")
    }

    /// A desk SIGKILLed in the middle of a slow download never comes back: a second desk, with a
    /// short `--inbox-claim-timeout`, takes its claim over and delivers the photo; the dead desk
    /// started again later takes nothing, and drops its partial download.
    func testASecondDeskTakesOverTheClaimOfADeskKilledMidDownload() throws {
        let store = try SeaweedFSProcess()
        defer { store.stop() }
        try store.createBucket("inbox")
        let gallery = try GalleryProcess()
        let (photo, dead, proxy, _) = try deskKilledMidDownload(store, gallery: gallery)
        defer { proxy.stop() }
        let deadID = try XCTUnwrap(try claims(store)["anna/IMG_0001.JPG"]?.desk)

        let other = try makeDesk(store, gallery: gallery)
        let relay = try startDesk(other, ["--inbox-claim-timeout", "1s"])
        defer { _ = relay.stop(signal: SIGKILL) }
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) { (try? self.claims(store)["anna/IMG_0001.JPG"]?.state) == "done" || !relay.isRunning },
            relay.stderr)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { ((try? other.status().queued.count) ?? 1) == 0 }, "spool empty")
        XCTAssertEqual(relay.stop(), 0, relay.stderr)
        XCTAssertTrue(relay.stderr.contains("desk \(deadID)'s claim went unrenewed"), relay.stderr)
        XCTAssertNotEqual(try claims(store)["anna/IMG_0001.JPG"]?.desk, deadID)

        // The dead desk back: its first listing finds the claim done by the other desk.
        let back = try startDesk(dead)
        defer { _ = back.stop(signal: SIGKILL) }
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) { self.partialBytes(dead) == 0 || !back.isRunning }, "its partial download dropped")
        XCTAssertEqual(back.stop(), 0, back.stderr)
        XCTAssertFalse(back.stderr.contains("download resumed"), back.stderr)
        XCTAssertEqual(try gallery.photos().map(\.sha256), [SHA256.hex(photo)], "once, whole, across both desks")
    }

    /// The store killed while a desk runs with photos waiting in it, and started again on the same
    /// data and port: the desk says it cannot reach the store and backs off, then takes every
    /// photo, once.
    func testTheStoreStoppedAndStartedDuringARunLosesAndRepeatsNothing() throws {
        let store = try SeaweedFSProcess()
        defer { store.stop() }
        try store.createBucket("inbox")
        let gallery = try GalleryProcess()
        let desk = try makeDesk(store, gallery: gallery)
        var sent: [String: Data] = [:]
        func put(_ number: Int) throws {
            let name = String(format: "IMG_%04d.JPG", number)
            sent[name] = JPEGFixture.bytes(count: 200_000 + number * 7_001, seed: UInt64(40 + number))
            try store.put(sent[name] ?? Data(), key: "field/anna/" + name, in: "inbox", photographer: "anna")
        }
        for number in 1...2 { try put(number) }
        let relay = try startDesk(desk)
        defer { _ = relay.stop(signal: SIGKILL) }
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { ((try? gallery.photos().count) ?? 0) >= 2 || !relay.isRunning }, relay.stderr)

        // Waiting in the store when it dies: the desk may have listed some, or be taking one.
        for number in 3...6 { try put(number) }
        store.kill()
        let backoffs = relay.stderr.components(separatedBy: "relay tries again").count
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) {
                relay.stderr.components(separatedBy: "relay tries again").count >= backoffs + 2 || !relay.isRunning
            }, relay.stderr)
        XCTAssertTrue(relay.isRunning, relay.stderr)
        try store.start()
        for number in 7...8 { try put(number) }
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) {
                ((try? self.claims(store).values.filter { $0.state == "done" }.count) ?? 0) >= 8 || !relay.isRunning
            }, relay.stderr)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { ((try? desk.status().queued.count) ?? 1) == 0 }, "spool empty")
        XCTAssertEqual(relay.stop(), 0, relay.stderr)

        XCTAssertTrue(relay.stderr.contains("could not"), relay.stderr)
        let delivered = try gallery.photos()
        XCTAssertEqual(delivered.map(\.name).sorted(), sent.keys.sorted(), "each once")
        for photo in delivered { XCTAssertEqual(photo.sha256, sent[photo.name].map(SHA256.hex), photo.name) }
        XCTAssertEqual(try claims(store).count, 8)
    }
}
