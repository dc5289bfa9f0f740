import Foundation
import RelayCore
import TestSupport
import XCTest

/// A desk on a SeaweedFS inbox reading who shot each photo from its key's path
/// (`--inbox-photographer`), and checking each photo against the SHA-256 checksum its field
/// relay PUT it with. The objects are PUT with boto3 under the keys and with the metadata a field
/// relay's `s3://inbox/field/{photographer}/{name}` destination writes (S3BucketTests checks
/// those against relay's own destination).
final class S3InboxPhotographerDeskTests: XCTestCase {
    /// The key's folder names the photographer; the metadata keeps the spelling of a path-safe
    /// name; a key the template does not make is credited from its metadata, said once; a key
    /// and metadata naming different people go by the key, said. A template that cannot name
    /// anyone ends `relay run` before it starts.
    func testTheKeysFolderNamesThePhotographer() throws {
        let store = try SeaweedFSProcess()
        defer { store.stop() }
        try store.createBucket("inbox")
        let gallery = try GalleryProcess()
        let desk = try S3InboxDesk.make(store, gallery: gallery)

        for (template, said) in [
            ("{name}", "--inbox-photographer '{name}': it has no {photographer}"),
            ("{photographer}-{name}", "{photographer} shares a folder with {name}"),
            ("field/{photographer}/{name}", "leave the prefix out, e.g. '{photographer}/{name}'"),
        ] {
            let refused = try desk.relay("run", "--inbox", "inbox", "--config", "gallery", "--inbox-photographer", template)
            XCTAssertEqual(refused.status, 2, refused.stderr)
            XCTAssertTrue(refused.stderr.contains(said), refused.stderr)
        }

        let photos: [(key: String, metadata: String?, credited: String?)] = [
            ("Ana_L_pez/IMG_0001.JPG", "Ana López", "Ana López"),
            ("Zoë Ortiz/IMG_0002.JPG", nil, "Zoë Ortiz"),
            ("IMG_0003.JPG", "carl", "carl"),
            ("dora/IMG_0004.JPG", "eve", "dora"),
            ("_/IMG_0005.JPG", nil, nil),
            ("IMG_0006.JPG", nil, nil),
        ]
        for (number, photo) in photos.enumerated() {
            let body = JPEGFixture.bytes(count: 20_000 + number * 1_001, seed: UInt64(number + 1))
            try store.put(body, key: "field/" + photo.key, in: "inbox", photographer: photo.metadata, sha256: true)
        }
        let relay = try S3InboxDesk.start(desk, ["--inbox-photographer", "{photographer}/{name}"])
        defer { _ = relay.stop(signal: SIGKILL) }
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 60) { ((try? desk.history().filter(\.success).count) ?? 0) >= 6 || !relay.isRunning },
            relay.stderr)
        XCTAssertEqual(relay.stop(), 0, relay.stderr)

        let credited = Dictionary(uniqueKeysWithValues: try desk.history().filter(\.success).map { ($0.fileName, $0.photographer) })
        let expected = Dictionary(uniqueKeysWithValues: photos.map { (String($0.key.split(separator: "/").last ?? ""), $0.credited) })
        XCTAssertEqual(credited, expected)
        XCTAssertEqual(
            relay.stderr.components(separatedBy: "is not a key --inbox-photographer '{photographer}/{name}' makes: it and every").count
                - 1, 1,
            "said once: \(relay.stderr)")
        XCTAssertTrue(
            relay.stderr.contains("its key names dora, its x-amz-meta-photographer eve; credited to dora"), relay.stderr)
        XCTAssertFalse(relay.stderr.contains("only its JPEG structure is checked"), "each has its SHA-256: \(relay.stderr)")
    }

    /// A desk that died mid-download left half a photo whose bytes were damaged since (a power
    /// cut before they reached the disk). The resumed download's answer has no checksum (a ranged
    /// GET), so the desk asks a HEAD for it: the joined bytes do not match the field relay's
    /// SHA-256, and the photo is downloaded again from the start, whole this time.
    func testADamagedResumedDownloadIsCaughtByItsSHA256AndTakenAgainWhole() throws {
        let store = try SeaweedFSProcess()
        defer { store.stop() }
        try store.createBucket("inbox")
        let gallery = try GalleryProcess()
        let desk = try S3InboxDesk.make(store, gallery: gallery)
        try FileManager.default.createDirectory(at: desk.home, withIntermediateDirectories: true)
        try Data(#"{"desk": "desk-me"}"#.utf8).write(to: desk.home.appendingPathComponent("inbox-desk.json"))

        let photo = JPEGFixture.bytes(count: 200_000, seed: 7)
        try store.put(photo, key: "field/anna/IMG_0001.JPG", in: "inbox", photographer: "anna", sha256: true)
        var md5 = MD5Digest()
        md5.update(photo)
        let taking = """
            {"desk": "desk-me", "object": {"key": "field/anna/IMG_0001.JPG", "etag": "\(md5.hex())"},
             "state": "taking", "started": "2026-01-01T00:00:00Z", "renewed": "2026-01-01T00:00:00Z"}
            """
        try store.put(Data(taking.utf8), key: "field/.relay/claims/anna/IMG_0001.JPG.json", in: "inbox")
        var name = SHA256Digest()
        name.update(Array("field/anna/IMG_0001.JPG\u{0}\(md5.hex())".utf8))
        let partials = desk.home.appendingPathComponent("inbox-partial")
        try FileManager.default.createDirectory(at: partials, withIntermediateDirectories: true)
        var damaged = Data(photo.prefix(80_000))
        damaged[40_000] ^= 0x01
        try damaged.write(to: partials.appendingPathComponent(name.hex() + ".part"))

        let relay = try S3InboxDesk.start(desk)
        defer { _ = relay.stop(signal: SIGKILL) }
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 60) {
                (try? S3InboxDesk.claims(store)["anna/IMG_0001.JPG"]?.state) == "done" || !relay.isRunning
            }, relay.stderr)
        XCTAssertEqual(relay.stop(), 0, relay.stderr)
        XCTAssertTrue(relay.stderr.contains("download resumed at byte 80000"), relay.stderr)
        XCTAssertTrue(
            relay.stderr.contains(
                "IMG_0001.JPG: the download did not check (s3://inbox/field/anna/IMG_0001.JPG does not match its SHA-256 "
                    + "checksum"), relay.stderr)
        XCTAssertEqual(try gallery.photos().map(\.sha256), [SHA256.hex(photo)])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: partials.path), [], "the partial download is gone")
    }

    /// A multipart upload's ETag and SHA-256 are of its parts, not of its bytes. With its parts'
    /// sizes (a HEAD of each), its SHA-256 checksum is checked all the same: a damaged partial
    /// download is caught and the photo taken again whole. One uploaded without SHA-256s is taken
    /// on its JPEG structure alone, and the desk says so once.
    func testAMultipartUploadIsCheckedByItsPartsSHA256s() throws {
        let store = try SeaweedFSProcess()
        defer { store.stop() }
        try store.createBucket("inbox")
        let gallery = try GalleryProcess()
        let desk = try S3InboxDesk.make(store, gallery: gallery)
        let partSize = 5 << 20
        let checked = JPEGFixture.bytes(count: partSize + 300_000, seed: 9)
        try store.putMultipart(checked, key: "field/anna/IMG_0001.JPG", in: "inbox")
        let unchecked = JPEGFixture.bytes(count: partSize + 200_000, seed: 10)
        try store.putMultipart(unchecked, key: "field/anna/IMG_0002.JPG", in: "inbox", sha256: false)

        // A cut download of IMG_0001 left by this desk, damaged: caught only by the parts' SHA-256s.
        try FileManager.default.createDirectory(at: desk.home, withIntermediateDirectories: true)
        try Data(#"{"desk": "desk-me"}"#.utf8).write(to: desk.home.appendingPathComponent("inbox-desk.json"))
        var partMD5s: [UInt8] = []
        for part in [checked.prefix(partSize), checked.dropFirst(partSize)] {
            var md5 = MD5Digest()
            md5.update(part)
            partMD5s += md5.finish()
        }
        var etag = MD5Digest()
        etag.update(partMD5s)
        let taking = """
            {"desk": "desk-me", "object": {"key": "field/anna/IMG_0001.JPG", "etag": "\(etag.hex())-2"},
             "state": "taking", "started": "2026-01-01T00:00:00Z", "renewed": "2026-01-01T00:00:00Z"}
            """
        try store.put(Data(taking.utf8), key: "field/.relay/claims/anna/IMG_0001.JPG.json", in: "inbox")
        var name = SHA256Digest()
        name.update(Array("field/anna/IMG_0001.JPG\u{0}\(etag.hex())-2".utf8))
        let partials = desk.home.appendingPathComponent("inbox-partial")
        try FileManager.default.createDirectory(at: partials, withIntermediateDirectories: true)
        var damaged = Data(checked.prefix(3_000_000))
        damaged[1_000_000] ^= 0x01
        try damaged.write(to: partials.appendingPathComponent(name.hex() + ".part"))

        let relay = try S3InboxDesk.start(desk)
        defer { _ = relay.stop(signal: SIGKILL) }
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 60) {
                ((try? gallery.photos().count) ?? 0) >= 2 && (try? S3InboxDesk.claims(store)["anna/IMG_0001.JPG"]?.state) == "done"
                    && (try? S3InboxDesk.claims(store)["anna/IMG_0002.JPG"]?.state) == "done" || !relay.isRunning
            }, relay.stderr)
        XCTAssertEqual(relay.stop(), 0, relay.stderr)
        XCTAssertTrue(relay.stderr.contains("download resumed at byte 3000000"), relay.stderr)
        XCTAssertTrue(
            relay.stderr.contains(
                "IMG_0001.JPG: the download did not check (s3://inbox/field/anna/IMG_0001.JPG does not match its multipart "
                    + "SHA-256 checksum"), relay.stderr)
        XCTAssertEqual(
            relay.stderr.components(separatedBy: "has neither a SHA-256 checksum nor an MD5 ETag").count - 1, 1, relay.stderr)
        XCTAssertTrue(
            relay.stderr.contains(
                "IMG_0002.JPG has neither a SHA-256 checksum nor an MD5 ETag (a multipart upload): only its JPEG structure is checked"),
            relay.stderr)
        XCTAssertEqual(try gallery.photos().map(\.sha256).sorted(), [SHA256.hex(checked), SHA256.hex(unchecked)].sorted())
    }
}
