import Foundation
import RelayCore
import TestSupport
import XCTest

/// `relay run --inbox NOTE`: a desk taking what field relays put in a SeaweedFS bucket and
/// delivering each to its gallery once: its photographer, its claim, a re-upload, a cut-short
/// object, `--inbox-delete`, and the stores and configs it refuses.
final class S3InboxDeskTests: XCTestCase {
    func testEachPhotoReachesTheGalleryOnceWithItsPhotographerAndItsClaimEndsDone() throws {
        let store = try SeaweedFSProcess()
        defer { store.stop() }
        try store.createBucket("inbox")
        let gallery = try GalleryProcess()
        let desk = try S3InboxDesk.make(store, gallery: gallery)
        let photos = [
            "anna/IMG_0001.JPG": (JPEGFixture.bytes(count: 40_000, seed: 1), "anna"),
            "ben/IMG_0002.JPG": (JPEGFixture.bytes(count: 90_000, seed: 2), "Ben López"),
            "anna/IMG_0003.JPG": (JPEGFixture.bytes(count: 25_000, seed: 3), "anna"),
        ]
        for (key, (body, photographer)) in photos {
            try store.put(body, key: "field/" + key, in: "inbox", photographer: photographer)
        }

        let relay = try S3InboxDesk.start(desk)
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
            Subprocess.waitUntil(timeout: 30) { ((try? S3InboxDesk.claims(store).values.filter { $0.state == "done" }.count) ?? 0) >= 4 },
            "\(String(describing: try? S3InboxDesk.claims(store)))")
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
        let stored = try S3InboxDesk.claims(store)
        XCTAssertEqual(
            stored.filter { $0.value.state == "done" }.keys.sorted(),
            ["anna/IMG_0001.JPG", "anna/IMG_0003.JPG", "ben/IMG_0002.JPG", "ben/IMG_0004.JPG"])
        XCTAssertNil(stored["anna/IMG_0005.JPG"], "the refused photo's claim is released for a corrected upload")
        XCTAssertTrue(relay.stderr.contains("IMG_0005.JPG: the download did not check"), "taken twice before it is refused")
        XCTAssertEqual(Set(stored.values.map(\.desk)).count, 1, "one desk")
    }

    /// The same key uploaded again: with the same bytes (the same ETag) it is not a new photo;
    /// with other bytes it is, and the desk says so.
    func testAKeyUploadedAgainIsANewPhotoOnlyWithOtherBytes() throws {
        let store = try SeaweedFSProcess()
        defer { store.stop() }
        try store.createBucket("inbox")
        let gallery = try GalleryProcess()
        let desk = try S3InboxDesk.make(store, gallery: gallery)
        let first = JPEGFixture.bytes(count: 30_000, seed: 1)
        try store.put(first, key: "field/anna/IMG_0001.JPG", in: "inbox", photographer: "anna")
        let relay = try S3InboxDesk.start(desk)
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

    /// `--inbox-delete`: a photo leaves the bucket once both of the desk's destinations have it;
    /// one that a destination refused for good stays in the inbox, and every claim ends done.
    func testInboxDeleteRemovesOnlyWhatEveryDestinationHas() throws {
        let store = try SeaweedFSProcess()
        defer { store.stop() }
        try store.createBucket("inbox")
        let gallery = try GalleryProcess()
        let archive = try GalleryProcess(arguments: ["--reject-name", "IMG_0002"])
        let desk = try S3InboxDesk.make(store, gallery: gallery)
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
            try S3InboxDesk.claims(store).values.map(\.state), Array(repeating: "done", count: 4),
            "the claims stay: no desk takes these bytes again")
        XCTAssertEqual(relay.stop(), 0, relay.stderr)
        XCTAssertEqual(try photos(), ["field/anna/IMG_0002.JPG"])
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
}
