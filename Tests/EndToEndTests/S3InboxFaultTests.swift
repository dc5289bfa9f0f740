import Foundation
import RelayCore
import TestSupport
import XCTest

/// An S3 inbox's desk through its faults: answers lost, a restart, a SIGKILL mid-download (the
/// download resumed with a Range), the store killed and started again under it.
final class S3InboxFaultTests: XCTestCase {
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
        var relay = try S3InboxDesk.start(desk)
        defer { _ = relay.stop(signal: SIGKILL) }
        XCTAssertTrue(Subprocess.waitUntil(timeout: 60) { ((try? gallery.photos().count) ?? 0) >= 3 || !relay.isRunning }, relay.stderr)
        XCTAssertEqual(relay.stop(), 0, relay.stderr)
        XCTAssertEqual(proxy.cuts, 3, proxy.output)
        XCTAssertTrue(relay.stderr.contains("relay tries again"), relay.stderr)

        relay = try S3InboxDesk.start(desk)
        sent["IMG_0004.JPG"] = JPEGFixture.bytes(count: 50_000, seed: 4)
        try store.put(sent["IMG_0004.JPG"] ?? Data(), key: "field/anna/IMG_0004.JPG", in: "inbox", photographer: "anna")
        XCTAssertTrue(Subprocess.waitUntil(timeout: 60) { ((try? gallery.photos().count) ?? 0) >= 4 || !relay.isRunning }, relay.stderr)
        XCTAssertEqual(relay.stop(), 0, relay.stderr)

        let delivered = try gallery.photos()
        XCTAssertEqual(delivered.map(\.name).sorted(), sent.keys.sorted(), "each once, across the restart")
        XCTAssertEqual(Set(try S3InboxDesk.claims(store).values.map(\.desk)).count, 1, "the restarted desk is the same desk")
    }

    /// A desk that died mid-download (its own claim `taking`, half the photo in
    /// `RELAY_HOME/inbox-partial/`) goes on with its claim when it starts again, without waiting
    /// out the timeout, and resumes the download with a Range: the photo arrives whole.
    func testARestartedDeskResumesItsOwnCutDownload() throws {
        let store = try SeaweedFSProcess()
        defer { store.stop() }
        try store.createBucket("inbox")
        let gallery = try GalleryProcess()
        let desk = try S3InboxDesk.make(store, gallery: gallery)
        let photo = JPEGFixture.bytes(count: 200_000, seed: 7)
        try FileManager.default.createDirectory(at: desk.home, withIntermediateDirectories: true)
        try Data(#"{"desk": "desk-me"}"#.utf8).write(to: desk.home.appendingPathComponent("inbox-desk.json"))
        let etag = try S3InboxDesk.putPhotoClaimedAsTaking(photo, by: "desk-me", in: store)
        var name = SHA256Digest()
        name.update(Array("field/anna/IMG_0001.JPG\u{0}\(etag)".utf8))
        let partials = desk.home.appendingPathComponent("inbox-partial")
        try FileManager.default.createDirectory(at: partials, withIntermediateDirectories: true)
        try photo.prefix(80_000).write(to: partials.appendingPathComponent(name.hex() + ".part"))

        let relay = try S3InboxDesk.start(desk)
        defer { _ = relay.stop(signal: SIGKILL) }
        XCTAssertTrue(Subprocess.waitUntil(timeout: 60) { ((try? gallery.photos().count) ?? 0) >= 1 || !relay.isRunning }, relay.stderr)
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) { (try? S3InboxDesk.claims(store)["anna/IMG_0001.JPG"]?.state) == "done" },
            "\(String(describing: try? S3InboxDesk.claims(store)))")
        XCTAssertEqual(relay.stop(), 0, relay.stderr)
        XCTAssertTrue(relay.stderr.contains("download resumed at byte 80000"), relay.stderr)
        XCTAssertEqual(try gallery.photos().map(\.sha256), [SHA256.hex(photo)])
        XCTAssertEqual(try S3InboxDesk.claims(store)["anna/IMG_0001.JPG"]?.desk, "desk-me")
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
        let (photo, desk, proxy, partial) = try S3InboxDesk.deskKilledMidDownload(store, gallery: gallery)
        defer { proxy.stop() }

        let relay = try S3InboxDesk.start(desk)
        defer { _ = relay.stop(signal: SIGKILL) }
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) {
                (try? S3InboxDesk.claims(store)["anna/IMG_0001.JPG"]?.state) == "done" || !relay.isRunning
            },
            relay.stderr)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { ((try? desk.status().queued.count) ?? 1) == 0 }, "spool empty")
        XCTAssertEqual(relay.stop(), 0, relay.stderr)
        XCTAssertTrue(relay.stderr.contains("download resumed at byte \(partial)"), relay.stderr)
        XCTAssertEqual(try gallery.photos().map(\.sha256), [SHA256.hex(photo)], "once, whole")
        XCTAssertEqual(S3InboxDesk.partialBytes(desk), 0, "the partial download is gone")
    }

    /// The store killed while a desk runs with photos waiting in it, and started again on the same
    /// data and port: the desk says it cannot reach the store and backs off, then takes every
    /// photo, once.
    func testTheStoreStoppedAndStartedDuringARunLosesAndRepeatsNothing() throws {
        let store = try SeaweedFSProcess()
        defer { store.stop() }
        try store.createBucket("inbox")
        let gallery = try GalleryProcess()
        let desk = try S3InboxDesk.make(store, gallery: gallery)
        var sent: [String: Data] = [:]
        func put(_ number: Int) throws {
            let name = String(format: "IMG_%04d.JPG", number)
            sent[name] = JPEGFixture.bytes(count: 200_000 + number * 7_001, seed: UInt64(40 + number))
            try store.put(sent[name] ?? Data(), key: "field/anna/" + name, in: "inbox", photographer: "anna")
        }
        for number in 1...2 { try put(number) }
        let relay = try S3InboxDesk.start(desk)
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
                ((try? S3InboxDesk.claims(store).values.filter { $0.state == "done" }.count) ?? 0) >= 8 || !relay.isRunning
            }, relay.stderr)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { ((try? desk.status().queued.count) ?? 1) == 0 }, "spool empty")
        XCTAssertEqual(relay.stop(), 0, relay.stderr)

        XCTAssertTrue(relay.stderr.contains("could not"), relay.stderr)
        let delivered = try gallery.photos()
        XCTAssertEqual(delivered.map(\.name).sorted(), sent.keys.sorted(), "each once")
        for photo in delivered { XCTAssertEqual(photo.sha256, sent[photo.name].map(SHA256.hex), photo.name) }
        XCTAssertEqual(try S3InboxDesk.claims(store).count, 8)
    }
}
