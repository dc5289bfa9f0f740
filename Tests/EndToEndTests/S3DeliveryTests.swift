import Foundation
import TestSupport
import XCTest

/// `relay run` delivering a hot folder to a real SeaweedFS bucket through an `s3://` config,
/// with the keys only in the environment; boto3 reads the objects back.
final class S3DeliveryTests: XCTestCase {
    func testPhotosLandInTheBucketUnderTheirTemplateKeysOnce() throws {
        let store = try SeaweedFSProcess()
        defer { store.stop() }
        try store.createBucket("event")
        let harness = try RelayHarness()
        let added = try harness.relay(
            "config", "add", "--url", "s3://event/gala/{seq}-{name}", "--endpoint", store.endpoint,
            "--note", "bucket")
        XCTAssertEqual(added.status, 0, added.stderr)

        let refused = try harness.relay("run", "--folder", harness.dropFolder.path)
        XCTAssertEqual(refused.status, 3, "no credentials: \(refused.stderr)")
        XCTAssertTrue(refused.stderr.contains("AWS_ACCESS_KEY_ID"), refused.stderr)
        XCTAssertEqual(try harness.relay("config", "add", "--url", "s3://event/{nmae}").status, 3, "unknown placeholder")

        harness.environment["AWS_ACCESS_KEY_ID"] = store.accessKey
        harness.environment["AWS_SECRET_ACCESS_KEY"] = store.secretKey
        let relay = try harness.startRun()
        defer { _ = relay.stop(signal: SIGKILL) }
        let photos = try harness.dropPhotos(4)
        let delivered = Subprocess.waitUntil(timeout: 60) {
            ((try? harness.history()) ?? []).filter(\.success).count >= 4 || !relay.isRunning
        }
        XCTAssertTrue(delivered, relay.stderr)
        XCTAssertEqual(relay.stop(), 0, relay.stderr)

        let objects = try store.objects(in: "event")
        XCTAssertEqual(objects.count, 4, "\(objects.map(\.key))")
        for object in objects {
            let name = String(object.key.split(separator: "-").last ?? "")
            XCTAssertTrue(object.key.hasPrefix("gala/000"), object.key)
            XCTAssertEqual(object.sha256, photos[name].map(SHA256.hex), object.key)
            XCTAssertEqual(object.contentType, "image/jpeg")
        }
        let history = try harness.history()
        XCTAssertTrue(history.allSatisfy { $0.requestSummary.hasPrefix("PUT s3://event/gala/") }, "\(history.map(\.requestSummary))")
        XCTAssertFalse(history.contains { $0.requestSummary.contains(store.secretKey) }, "the secret never reaches the history")
    }

    /// A venue's Wi-Fi loses the store's 200 to a PUT: the re-send asks first (a HEAD of the
    /// key), finds the object whole, and the photo is delivered without a second PUT.
    func testAnAnswerLostAfterThePutIsFoundByTheReSendNotSentAgain() throws {
        let store = try SeaweedFSProcess()
        defer { store.stop() }
        try store.createBucket("event")
        let proxy = try CutAnswerProxy(target: store.s3Port, status: 200, anyAnswer: false)
        defer { proxy.stop() }
        let harness = try RelayHarness()
        harness.environment["AWS_ACCESS_KEY_ID"] = store.accessKey
        harness.environment["AWS_SECRET_ACCESS_KEY"] = store.secretKey
        let added = try harness.relay("config", "add", "--url", "s3://event/gala", "--endpoint", "http://127.0.0.1:\(proxy.port)")
        XCTAssertEqual(added.status, 0, added.stderr)

        let relay = try harness.startRun()
        defer { _ = relay.stop(signal: SIGKILL) }
        let photos = try harness.dropPhotos(1)
        let delivered = Subprocess.waitUntil(timeout: 60) {
            ((try? harness.history()) ?? []).contains(where: \.success) || !relay.isRunning
        }
        XCTAssertTrue(delivered, relay.stderr)
        XCTAssertEqual(relay.stop(), 0, relay.stderr)
        XCTAssertEqual(proxy.cuts, 1, proxy.output)

        let objects = try store.objects(in: "event")
        XCTAssertEqual(objects.map(\.key), ["gala/IMG_0001.JPG"])
        XCTAssertEqual(objects.first?.sha256, photos["IMG_0001.JPG"].map(SHA256.hex))
        let history = try harness.history()
        XCTAssertEqual(history.filter { !$0.success }.map(\.attempt), [1], "the lost answer, as a failure to retry")
        let found = try XCTUnwrap(history.first(where: \.success), "\(history.map(\.responseSummary))")
        XCTAssertEqual(found.responseSummary, "already there: found by HEAD, same SHA-256", "not sent again")
    }
}

/// `relay run --config gallery --config bucket`: every photo goes to both, each at its own
/// pace; a destination that refuses everything does not hold up the gallery.
final class SeveralDestinationsTests: XCTestCase {
    func testEachPhotoReachesTheGalleryAndTheBucketAndLeavesTheSpoolOnce() throws {
        let store = try SeaweedFSProcess()
        defer { store.stop() }
        try store.createBucket("backup")
        let gallery = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "gallery")
        harness.environment["AWS_ACCESS_KEY_ID"] = store.accessKey
        harness.environment["AWS_SECRET_ACCESS_KEY"] = store.secretKey
        let added = try harness.relay(
            "config", "add", "--url", "s3://backup/originals", "--endpoint", store.endpoint,
            "--note", "backup", "--priority", "low")
        XCTAssertEqual(added.status, 0, added.stderr)

        // The backup is named first: the gallery, of normal priority, is still the primary.
        let relay = try harness.startRun(["--config", "backup", "--config", "gallery"])
        defer { _ = relay.stop(signal: SIGKILL) }
        let photos = try harness.dropPhotos(5)
        let done = Subprocess.waitUntil(timeout: 90) {
            ((try? store.objects(in: "backup").count) ?? 0) >= 5 && ((try? gallery.photos().count) ?? 0) >= 5 || !relay.isRunning
        }
        XCTAssertTrue(done, relay.stderr)
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) { ((try? harness.status().queued.count) ?? 1) == 0 },
            "the spool empties: \((try? harness.relay("status").stdout) ?? "")\n\(relay.stderr)")
        XCTAssertEqual(relay.stop(), 0, relay.stderr)

        XCTAssertEqual(try gallery.photos().map(\.name).sorted(), photos.keys.sorted())
        let objects = try store.objects(in: "backup")
        XCTAssertEqual(objects.map(\.key).sorted(), photos.keys.sorted().map { "originals/\($0)" })
        for object in objects { XCTAssertEqual(object.sha256, photos[String(object.key.dropFirst("originals/".count))].map(SHA256.hex)) }
        let history = try harness.history()
        XCTAssertEqual(Set(history.compactMap(\.destination)), ["gallery", "backup"])
        XCTAssertEqual(history.filter(\.success).count, 10, "one delivery per photo and destination")
        XCTAssertTrue(relay.stderr.contains("low priority"), relay.stderr)
    }

    func testARefusingDestinationDoesNotHoldUpTheGalleryAndIsRetriedAlone() throws {
        let store = try SeaweedFSProcess()
        defer { store.stop() }
        let gallery = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "gallery")
        harness.environment["AWS_ACCESS_KEY_ID"] = store.accessKey
        harness.environment["AWS_SECRET_ACCESS_KEY"] = "wrong-secret"
        XCTAssertEqual(
            try harness.relay("config", "add", "--url", "s3://backup/x", "--endpoint", store.endpoint, "--note", "backup").status, 0)

        let relay = try harness.startRun(["--config", "gallery", "--config", "backup"])
        defer { _ = relay.stop(signal: SIGKILL) }
        try harness.dropPhotos(3)
        let settled = Subprocess.waitUntil(timeout: 60) { ((try? harness.status().failed.count) ?? 0) >= 3 || !relay.isRunning }
        XCTAssertTrue(settled, relay.stderr)
        XCTAssertEqual(relay.stop(), 0, relay.stderr)
        XCTAssertEqual(try gallery.photos().count, 3, "the gallery has every photo")
        let status = try harness.relay("status")
        XCTAssertTrue(status.stdout.contains("→ backup") && status.stdout.contains("refused relay's credentials"), status.stdout)
        XCTAssertTrue(status.stdout.contains("→ gallery") && status.stdout.contains("delivered"), status.stdout)

        let retry = try harness.relay("retry", "--all", "--destination", "backup")
        XCTAssertEqual(retry.status, 0, retry.stderr)
        XCTAssertEqual(try harness.status().queued.count, 3, "queued again for the backup only")
        XCTAssertEqual(try gallery.uploadRequests().count, 3, "the gallery was not sent anything twice")
    }
}
