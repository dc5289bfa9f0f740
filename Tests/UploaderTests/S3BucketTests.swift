import Foundation
import RelayCore
import TestSupport
import Uploader
import XCTest

/// What a desk's S3 inbox does with a bucket, against a real SeaweedFS: list every key across
/// pages, and download a photo, resumed where a cut download stopped. The photos are put by
/// relay's own S3 destination, as a field relay would; the listing's objects by boto3.
final class S3BucketTests: GalleryTestCase {
    nonisolated(unsafe) private static var shared: SeaweedFSProcess?

    override class func tearDown() {
        shared?.stop()
        shared = nil
        super.tearDown()
    }

    private func startStore(bucket: String) throws -> SeaweedFSProcess {
        let store = try Self.shared ?? SeaweedFSProcess()
        Self.shared = store
        try store.createBucket(bucket)
        return store
    }

    private func config(_ url: String, _ store: SeaweedFSProcess) -> RequestConfig {
        RequestConfig(url: url, options: ["endpoint": .string(store.endpoint)])
    }

    private func credentials(_ store: SeaweedFSProcess) -> [String: String] {
        ["AWS_ACCESS_KEY_ID": store.accessKey, "AWS_SECRET_ACCESS_KEY": store.secretKey]
    }

    /// 60 objects under the prefix, 25 a page: three pages, followed by `listAll`. Keys outside the
    /// prefix are not listed; each ETag is the object's MD5. (A store's own page is 1,000 keys:
    /// the same continuation, without 1,000 objects to put first.)
    func testListsEveryObjectAcrossPages() throws {
        let store = try startStore(bucket: "listing")
        try store.fill("listing", prefix: "inbox/ana/", count: 60)
        try store.fill("listing", prefix: "elsewhere/", count: 3)
        let bucket = try S3Bucket(
            config: config("s3://listing/inbox", store), environment: credentials(store), cancellation: UploadCancellation())

        let first = try bucket.list(prefix: "inbox/", maxKeys: 25)
        XCTAssertEqual(first.objects.count, 25)
        XCTAssertTrue(first.isTruncated)
        let second = try bucket.list(prefix: "inbox/", continuationToken: first.nextContinuationToken, maxKeys: 25)
        XCTAssertEqual(second.objects.first?.key, "inbox/ana/00025.jpg")
        XCTAssertTrue(second.isTruncated)

        let expected = (0..<60).map { String(format: "inbox/ana/%05d.jpg", $0) }
        XCTAssertEqual(try bucket.listAll(prefix: "inbox/", maxKeys: 25).map(\.key), expected)
        XCTAssertEqual(try bucket.listAll(prefix: "inbox/").map(\.key), expected)

        let listed = try bucket.listAll(prefix: "inbox/ana/0000")
        XCTAssertEqual(listed.map(\.key), expected.prefix(10).map { $0 })
        let stored = try store.objects(in: "listing").filter { $0.key.hasPrefix("inbox/ana/0000") }
        XCTAssertEqual(listed.map(\.etag), stored.map(\.md5))
        XCTAssertEqual(listed.map(\.size), stored.map { Int64($0.size) })
        XCTAssertTrue(listed.allSatisfy { abs($0.lastModified.timeIntervalSinceNow) < 600 }, "\(listed.map(\.lastModified))")
    }

    /// A download cut halfway resumes from the bytes the file has and ends whole, byte for byte;
    /// asked again at its end (416) it is complete as it is. A whole object (200) replaces what
    /// the file had. The ETag is the MD5 of the bytes, the photographer the field relay's, the
    /// checksum the SHA-256 the field relay PUT with, in every case (a ranged answer has none:
    /// a HEAD gives it).
    func testDownloadResumesFromTheMiddle() throws {
        let store = try startStore(bucket: "takes")
        let photo = try makePhoto("IMG_0100.JPG", size: 700_000, seed: 21)
        var values = PathTemplate.Values(name: "IMG_0100.JPG", capturedAt: Date(), camera: "0123", serial: "0123", sequence: 1, run: "r")
        values.photographer = "Ana L\u{F3}pez"
        let field = try S3Destination(
            config: config("s3://takes/inbox/{photographer}/{name}", store), environment: credentials(store), policy: DeliveryPolicy(),
            cancellation: UploadCancellation())
        let item = DeliveryItem(filePath: photo.path, name: "IMG_0100.JPG", key: "k", contentType: "image/jpeg", template: values)
        XCTAssertEqual(field.deliver(item, growing: nil, attempt: 0).decision, .delivered)
        let key = "inbox/Ana_L_pez/IMG_0100.JPG"  // the key template makes the name safe; the metadata keeps it
        let md5 = try XCTUnwrap(store.objects(in: "takes").first?.md5)

        let desk = try S3Bucket(
            config: config("s3://takes/inbox", store), environment: credentials(store), cancellation: UploadCancellation())
        let listed = try desk.listAll(prefix: "inbox/")
        XCTAssertEqual(listed.map(\.key), [key])
        XCTAssertEqual(listed.first?.etag, md5)

        let cut = scratch.appendingPathComponent("cut.part")
        try photo.data.prefix(300_001).write(to: cut)
        let resumed = try desk.download(key: key, to: cut.path, resumingAt: 300_001)
        XCTAssertEqual(try Data(contentsOf: cut), photo.data)
        var sha256 = SHA256Digest()
        sha256.update(photo.data)
        XCTAssertEqual(
            resumed,
            S3Bucket.Download(etag: md5, photographer: "Ana L\u{F3}pez", size: Int64(photo.data.count), checksumSHA256: sha256.base64()))

        let again = try desk.download(key: key, to: cut.path, resumingAt: Int64(photo.data.count))
        XCTAssertEqual(again, resumed, "416: complete")
        XCTAssertEqual(try Data(contentsOf: cut), photo.data)

        let stale = scratch.appendingPathComponent("stale.part")
        try Data(repeating: 0xFF, count: 900_000).write(to: stale)
        XCTAssertEqual(try desk.download(key: key, to: stale.path), resumed)
        XCTAssertEqual(try Data(contentsOf: stale), photo.data, "a 200 replaces the file")

        let other = try makePhoto("IMG_0100.JPG", size: 600_000, seed: 22)
        XCTAssertNotEqual(other.data, photo.data)
        XCTAssertEqual(field.deliver(item, growing: nil, attempt: 1).decision, .delivered)
        try photo.data.prefix(300_001).write(to: cut)
        XCTAssertThrowsError(try desk.download(key: key, to: cut.path, resumingAt: 300_001, etag: md5)) { error in
            XCTAssertEqual(error as? S3BucketError, .replaced(key: "s3://takes/\(key)"))
        }
        XCTAssertEqual(try Data(contentsOf: cut), photo.data.prefix(300_001), "nothing of the other photo spliced in")

        try store.put(other.data, key: "inbox/plain.jpg", in: "takes")
        let plain = try desk.download(key: "inbox/plain.jpg", to: scratch.appendingPathComponent("plain").path)
        XCTAssertNil(plain.checksumSHA256, "boto3's own PUT has a CRC32, no SHA-256")

        XCTAssertThrowsError(try desk.download(key: "inbox/none.jpg", to: scratch.appendingPathComponent("none").path)) { error in
            XCTAssertTrue(
                "\(error)".hasPrefix("the S3 store refused to download s3://takes/inbox/none.jpg (NoSuchKey, HTTP 404)"), "\(error)")
        }
    }
}
