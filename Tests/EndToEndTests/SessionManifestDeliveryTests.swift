import Foundation
import TestSupport
import XCTest

/// `relay run --session NAME` against a real SeaweedFS bucket: the photos land under `{run}` =
/// the session, and a clean end delivers `manifest.json` then `_DONE`; a run killed before its
/// end sends no marker, and the next run with the same session sends it, once.
final class SessionManifestDeliveryTests: XCTestCase {
    func testAKilledSessionIsCompletedByTheNextRunWithTheManifestThenTheMarkerOnce() throws {
        let store = try SeaweedFSProcess()
        defer { store.stop() }
        try store.createBucket("event")
        let harness = try RelayHarness()
        harness.environment["AWS_ACCESS_KEY_ID"] = store.accessKey
        harness.environment["AWS_SECRET_ACCESS_KEY"] = store.secretKey
        let added = try harness.relay(
            "config", "add", "--url", "s3://event/gala/{run}/{name}", "--endpoint", store.endpoint,
            "--note", "bucket")
        XCTAssertEqual(added.status, 0, added.stderr)

        let first = try harness.startRun(["--session", "party"])
        defer { _ = first.stop(signal: SIGKILL) }
        var photos = try harness.dropPhotos(2)
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 60) {
                ((try? harness.history()) ?? []).filter(\.success).count >= 2 || !first.isRunning
            }, first.stderr)
        _ = first.stop(signal: SIGKILL)
        XCTAssertFalse(try store.objects(in: "event").contains { $0.key.hasSuffix("_DONE") }, "no marker after a crash")

        let second = try harness.startRun(["--session", "party"])
        defer { _ = second.stop(signal: SIGKILL) }
        photos.merge(try harness.dropPhotos(1, startingAt: 3)) { $1 }
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 60) {
                ((try? harness.history()) ?? []).filter(\.success).count >= 3 || !second.isRunning
            }, second.stderr)
        XCTAssertEqual(second.stop(signal: SIGINT), 0, second.stderr)

        let objects = try store.objects(in: "event")
        XCTAssertEqual(
            objects.map(\.key).sorted(),
            (photos.keys.map { "gala/party/\($0)" } + ["gala/party/_DONE", "gala/party/manifest.json"]).sorted())
        let manifest =
            try JSONSerialization.jsonObject(with: try store.body(of: "gala/party/manifest.json", in: "event"))
            as? [String: Any]
        XCTAssertEqual(manifest?["session"] as? String, "party")
        let listed = (manifest?["photos"] as? [[String: Any]]) ?? []
        XCTAssertEqual(listed.compactMap { $0["name"] as? String }.sorted(), photos.keys.sorted())
        for photo in listed {
            let name = photo["name"] as? String ?? ""
            XCTAssertEqual(photo["sha256"] as? String, photos[name].map(SHA256.hex), name)
            XCTAssertEqual(photo["size"] as? Int, photos[name]?.count, name)
            XCTAssertEqual(photo["deliveredAs"] as? String, "s3://event/gala/party/\(name)")
            XCTAssertNotNil(photo["capturedAt"] as? String, name)
        }
        XCTAssertTrue(second.stderr.contains("session party → bucket: complete, 3 photos"), second.stderr)

        let third = try harness.startRun(["--session", "party"])
        defer { _ = third.stop(signal: SIGKILL) }
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { third.stderr.contains("relay:") || !third.isRunning }, third.stderr)
        XCTAssertEqual(third.stop(signal: SIGINT), 0, third.stderr)
        XCTAssertFalse(third.stderr.contains("complete,"), "an announced set is not announced again: \(third.stderr)")
    }
}

/// A gallery config's `manifestUrl`: a clean end of `relay run --session NAME` POSTs the
/// session's manifest there (for a gallery, its arrival is the marker).
final class SessionManifestURLTests: XCTestCase {
    func testTheGalleryReceivesTheManifestOfEveryPhotoOnce() throws {
        let gallery = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "gallery", ["--manifest-url", gallery.manifestURL])
        let refused = try harness.relay("config", "add", "--url", "s3://event/x", "--manifest-url", gallery.manifestURL)
        XCTAssertEqual(refused.status, 3, "manifestUrl is for http configs: \(refused.stderr)")

        let relay = try harness.startRun(["--session", "gig"])
        defer { _ = relay.stop(signal: SIGKILL) }
        let photos = try harness.dropPhotos(2)
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 60) { ((try? gallery.photos().count) ?? 0) >= 2 || !relay.isRunning },
            relay.stderr)
        XCTAssertEqual(try gallery.manifests().count, 0, "no manifest before the run ends")
        XCTAssertEqual(relay.stop(signal: SIGINT), 0, relay.stderr)

        let manifests = try gallery.manifests()
        XCTAssertEqual(manifests.count, 1, relay.stderr)
        XCTAssertEqual(manifests.first?["session"] as? String, "gig")
        let listed = (manifests.first?["photos"] as? [[String: Any]]) ?? []
        XCTAssertEqual(listed.compactMap { $0["name"] as? String }.sorted(), photos.keys.sorted())
        for photo in listed {
            let name = photo["name"] as? String ?? ""
            XCTAssertEqual(photo["sha256"] as? String, photos[name].map(SHA256.hex), name)
            XCTAssertEqual(photo["deliveredAs"] as? String, gallery.uploadURL, name)
        }
        let post = try gallery.requests().first { $0.path == "/manifests" }
        XCTAssertEqual(post?.headers["content-type"], "application/json")
    }
}
