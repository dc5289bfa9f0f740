import Foundation
import RelayCore
import TestSupport
import XCTest

/// Desks sharing one S3 inbox take each photo once between them: claims, their renewal while a
/// desk is slow, the takeover of a dead desk's claim, and field relays to desks through lost
/// answers.
final class S3InboxTwoDesksTests: XCTestCase {
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
        let deskA = try S3InboxDesk.make(store, gallery: gallery)
        let deskB = try S3InboxDesk.make(store, gallery: gallery)
        let relayA = try S3InboxDesk.start(deskA)
        defer { _ = relayA.stop(signal: SIGKILL) }
        let relayB = try S3InboxDesk.start(deskB)
        defer { _ = relayB.stop(signal: SIGKILL) }
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 90) {
                ((try? S3InboxDesk.claims(store).values.filter { $0.state == "done" }.count) ?? 0) >= 12 || !relayA.isRunning
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
        let stored = try S3InboxDesk.claims(store)
        XCTAssertEqual(stored.count, 12)
        XCTAssertTrue(stored.values.allSatisfy { $0.state == "done" }, "\(stored)")
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

        let deskRuns = try desks.map { try S3InboxDesk.start($0) }
        defer { for run in deskRuns { _ = run.stop(signal: SIGKILL) } }
        let fieldRuns = [try fields[0].startRun(["--photographer", "Ana López"]), try fields[1].startRun(["--photographer", "Ben"])]
        defer { for run in fieldRuns { _ = run.stop(signal: SIGKILL) } }
        let ana = try fields[0].dropPhotos(4, prefix: "ANA_")
        let ben = try fields[1].dropPhotos(4, prefix: "BEN_", seed: 100)
        let running = { (deskRuns + fieldRuns).allSatisfy(\.isRunning) }

        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 90) {
                (try? S3InboxDesk.claims(store).values.filter { $0.state == "done" }.count) == 8 || !running()
            },
            (deskRuns + fieldRuns).map(\.stderr).joined(separator: "\n"))
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { ((try? gallery.photos().count) ?? 0) >= 8 }, deskRuns.map(\.stderr).joined())
        for run in fieldRuns + deskRuns { XCTAssertEqual(run.stop(), 0, run.stderr) }
        XCTAssertEqual(fieldProxy.cuts, 2, fieldProxy.output)
        XCTAssertEqual(deskProxy.cuts, 6, deskProxy.output)
        let sent = ana.merging(ben) { first, _ in first }
        XCTAssertEqual(try gallery.photos().map(\.sha256).sorted(), sent.values.map(SHA256.hex).sorted(), "each once")
        XCTAssertEqual(try gallery.uploadRequests().count, 8, "none taken twice: one upload request each")
        XCTAssertEqual(try S3InboxDesk.claims(store).count, 8)
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

    /// A desk that takes long over a photo (here it waits for room in a full spool while its
    /// one-photo spool delivers to a slow gallery) renews its claim, so a second desk with the
    /// same 1 s timeout leaves it: each photo once, nothing taken over.
    func testASlowTakeRenewsItsClaimAndIsNotTakenOver() throws {
        let store = try SeaweedFSProcess()
        defer { store.stop() }
        try store.createBucket("inbox")
        let gallery = try GalleryProcess(arguments: ["--delay", "4"])
        let deskA = try S3InboxDesk.make(store, gallery: gallery)
        let deskB = try S3InboxDesk.make(store, gallery: gallery)
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
            Subprocess.waitUntil(timeout: 60) {
                (try? S3InboxDesk.claims(store)["anna/IMG_0002.JPG"]?.state) == "taking" || !relayA.isRunning
            },
            relayA.stderr)
        let started = Date()
        let relayB = try Subprocess(TestPaths.relayExecutable, ["run"] + options, environment: deskB.environment)
        defer { _ = relayB.stop(signal: SIGKILL) }

        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 60) {
                (try? S3InboxDesk.claims(store).values.filter { $0.state == "done" }.count) == 2 || !relayA.isRunning
            }, relayA.stderr)
        // Without renewals desk B would have taken the claim over at its first listing 2 s after
        // A's last write (the 1 s timeout and the second the store's dates may hide).
        XCTAssertGreaterThan(Date().timeIntervalSince(started), 2.5, "the second photo waited past the timeout")
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) { ((try? gallery.photos().count) ?? 0) >= 2 || !relayA.isRunning }, relayA.stderr)
        XCTAssertEqual(relayB.stop(), 0, relayB.stderr)
        XCTAssertEqual(relayA.stop(), 0, relayA.stderr)
        XCTAssertTrue(relayB.stderr.contains("IMG_0002.JPG: desk"), relayB.stderr)
        XCTAssertFalse(relayB.stderr.contains("takes it over"), relayB.stderr)
        XCTAssertFalse(relayA.stderr.contains("took its claim over"), relayA.stderr)
        XCTAssertEqual(try gallery.photos().map(\.sha256).sorted(), photos.map(SHA256.hex).sorted(), "each once")
        XCTAssertEqual(Set(try S3InboxDesk.claims(store).values.map(\.desk)).count, 1, "desk A took both")
    }

    /// A desk that died while taking a photo left its claim `taking`: once the claim has gone
    /// unrenewed for `--inbox-claim-timeout`, this desk takes it over and delivers the photo.
    func testADeadDesksClaimIsTakenOverAfterTheTimeout() throws {
        let store = try SeaweedFSProcess()
        defer { store.stop() }
        try store.createBucket("inbox")
        let gallery = try GalleryProcess()
        let desk = try S3InboxDesk.make(store, gallery: gallery)
        let photo = JPEGFixture.bytes(count: 30_000, seed: 1)
        _ = try S3InboxDesk.putPhotoClaimedAsTaking(photo, by: "desk-dead", in: store)

        let relay = try Subprocess(
            TestPaths.relayExecutable,
            [
                "run", "--inbox", "inbox", "--config", "gallery", "--inbox-every", "0.2", "--inbox-claim-timeout", "2s",
                "--retry-base", "0.05", "--retry-cap", "0.5",
            ], environment: desk.environment)
        defer { _ = relay.stop(signal: SIGKILL) }
        XCTAssertTrue(Subprocess.waitUntil(timeout: 60) { ((try? gallery.photos().count) ?? 0) >= 1 || !relay.isRunning }, relay.stderr)
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) { (try? S3InboxDesk.claims(store)["anna/IMG_0001.JPG"]?.state) == "done" },
            "\(String(describing: try? S3InboxDesk.claims(store)))")
        XCTAssertEqual(relay.stop(), 0, relay.stderr)
        XCTAssertTrue(relay.stderr.contains("desk desk-dead has it (taking)"), relay.stderr)
        XCTAssertTrue(relay.stderr.contains("desk desk-dead's claim went unrenewed"), relay.stderr)
        XCTAssertEqual(try gallery.photos().map(\.sha256), [SHA256.hex(photo)])
        XCTAssertNotEqual(try S3InboxDesk.claims(store)["anna/IMG_0001.JPG"]?.desk, "desk-dead")
    }

    /// A desk SIGKILLed in the middle of a slow download never comes back: a second desk, with a
    /// short `--inbox-claim-timeout`, takes its claim over and delivers the photo; the dead desk
    /// started again later takes nothing, and drops its partial download.
    func testASecondDeskTakesOverTheClaimOfADeskKilledMidDownload() throws {
        let store = try SeaweedFSProcess()
        defer { store.stop() }
        try store.createBucket("inbox")
        let gallery = try GalleryProcess()
        let (photo, dead, proxy, _) = try S3InboxDesk.deskKilledMidDownload(store, gallery: gallery)
        defer { proxy.stop() }
        let deadID = try XCTUnwrap(try S3InboxDesk.claims(store)["anna/IMG_0001.JPG"]?.desk)

        let other = try S3InboxDesk.make(store, gallery: gallery)
        let relay = try S3InboxDesk.start(other, ["--inbox-claim-timeout", "1s"])
        defer { _ = relay.stop(signal: SIGKILL) }
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) {
                (try? S3InboxDesk.claims(store)["anna/IMG_0001.JPG"]?.state) == "done" || !relay.isRunning
            },
            relay.stderr)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { ((try? other.status().queued.count) ?? 1) == 0 }, "spool empty")
        XCTAssertEqual(relay.stop(), 0, relay.stderr)
        XCTAssertTrue(relay.stderr.contains("desk \(deadID)'s claim went unrenewed"), relay.stderr)
        XCTAssertNotEqual(try S3InboxDesk.claims(store)["anna/IMG_0001.JPG"]?.desk, deadID)

        // The dead desk back: its first listing finds the claim done by the other desk.
        let back = try S3InboxDesk.start(dead)
        defer { _ = back.stop(signal: SIGKILL) }
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) { S3InboxDesk.partialBytes(dead) == 0 || !back.isRunning }, "its partial download dropped")
        XCTAssertEqual(back.stop(), 0, back.stderr)
        XCTAssertFalse(back.stderr.contains("download resumed"), back.stderr)
        XCTAssertEqual(try gallery.photos().map(\.sha256), [SHA256.hex(photo)], "once, whole, across both desks")
    }
}
