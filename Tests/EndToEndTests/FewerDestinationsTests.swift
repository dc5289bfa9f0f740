import Foundation
import TestSupport
import XCTest

/// Issue 26: a photo's destinations are decided when it is taken. A run to fewer destinations
/// (the gallery alone, the day after a run to gallery and backup while the backup was down)
/// neither sends the gallery anything twice nor drops the backup's photos; the next run to both
/// delivers every one of them to the backup.
final class FewerDestinationsTests: XCTestCase {
    /// A spool full of photos that wait for a destination the run does not deliver to cannot
    /// empty: the run says so, and how to free it, instead of leaving new photos at the camera
    /// without a word.
    func testASpoolFullOfAnotherDestinationsPhotosIsSaidWithHowToFreeIt() throws {
        let (gallery, _, harness, _) = try dayOne(photos: 2)
        let relay = try harness.startRun(["--config", "gallery", "--spool-max-photos", "2"])
        _ = try harness.dropPhotos(1, startingAt: 3)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { relay.stderr.contains("the spool is full") || !relay.isRunning }, relay.stderr)
        XCTAssertEqual(relay.stop(), 0, relay.stderr)
        XCTAssertTrue(relay.stderr.contains("(2 for 'backup')") && relay.stderr.contains("relay drop --destination"), relay.stderr)
        XCTAssertEqual(try gallery.photos().count, 2, "the new photo waits for room")
    }

    /// Day one: a run to the gallery and the backup while the backup answers 503 to everything:
    /// `photos` photos reach the gallery and wait for the backup.
    private func dayOne(photos count: Int) throws -> (
        gallery: GalleryProcess, backup: GalleryProcess, harness: RelayHarness,
        photos: [String: Data]
    ) {
        let gallery = try GalleryProcess()
        let backup = try GalleryProcess()
        try backup.setFaults(GalleryFaults(failRate: 1, failStatus: 503))
        let harness = try RelayHarness(sendingTo: gallery, note: "gallery")
        XCTAssertEqual(try harness.relay("config", "add", "--url", backup.uploadURL, "--note", "backup").status, 0)
        let relay = try harness.startRun(["--config", "gallery", "--config", "backup"])
        let photos = try harness.dropPhotos(count)
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 60) {
                ((try? gallery.photos().count) ?? 0) == count && ((try? backup.uploadRequests().count) ?? 0) >= count || !relay.isRunning
            }, relay.stderr)
        XCTAssertEqual(relay.stop(), 0, relay.stderr)
        return (gallery, backup, harness, photos)
    }

    func testTheBackupGetsEveryPhotoAfterARunToTheGalleryAlone() throws {
        let (gallery, backup, harness, first) = try dayOne(photos: 5)
        var relay: Subprocess

        // Day two: the gallery alone (the selected config), with its status page.
        harness.environment["RELAY_STATUS_TOKEN"] = "fewer"
        let port = try XCTUnwrap(ClosedPort.make())
        relay = try harness.startRun(["--config", "gallery", "--status", "\(port)"])
        let second = try harness.dropPhotos(3, startingAt: 6)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 60) { ((try? gallery.photos().count) ?? 0) == 8 || !relay.isRunning }, relay.stderr)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { ((try? harness.status().queued.count) ?? 0) == 5 }, "the backup's five stay")
        let metrics = try RawHTTP.send(
            host: "127.0.0.1", port: port, method: "GET", path: "/metrics",
            headers: ["Authorization": "Bearer fewer"], body: Data())
        let samples = String(decoding: metrics.body, as: UTF8.self).split(separator: "\n").map(String.init)
        XCTAssertTrue(samples.contains(#"relay_queue_depth{destination="backup",state="queued"} 5"#), "/metrics shows them:\n\(samples)")
        XCTAssertTrue(samples.contains(#"relay_destination_in_run{destination="backup"} 0"#))
        XCTAssertTrue(samples.contains(#"relay_destination_in_run{destination="gallery"} 1"#))
        XCTAssertEqual(relay.stop(), 0, relay.stderr)
        let notice = relay.stderr.split(separator: "\n").first { $0.contains("wait for 'backup'") } ?? ""
        XCTAssertTrue(notice.contains("5 photos ("), relay.stderr)
        for name in first.keys { XCTAssertTrue(notice.contains(name), "the notice names \(name): \(notice)") }
        XCTAssertTrue(relay.stderr.contains("which this run does not deliver to"), relay.stderr)
        XCTAssertFalse(relay.stderr.contains("resumed from the spool"), "nothing of the gallery's was resumed: \(relay.stderr)")
        XCTAssertEqual(try gallery.uploadRequests().count, 8, "the gallery got each photo once")

        let status = try harness.relay("status")
        XCTAssertTrue(status.stdout.contains("5 photos wait for 'backup'"), status.stdout)
        XCTAssertEqual(try harness.status().waiting.map(\.label), ["backup"], "and in relay status --json")
        XCTAssertEqual(try harness.status().waiting.first?.photos.sorted(), first.keys.sorted())
        let remove = try harness.relay("config", "remove", "backup")
        XCTAssertEqual(remove.status, 2, "refused while photos wait for it")
        XCTAssertTrue(remove.stderr.contains("5 photos wait for 'backup'") && remove.stderr.contains("--release"), remove.stderr)
        XCTAssertTrue(try harness.relay("config", "list").stdout.contains("backup"), "the config is still there")

        // Day three: both again, the backup back up.
        try backup.setFaults(GalleryFaults(failRate: 0))
        relay = try harness.startRun(["--config", "gallery", "--config", "backup"])
        XCTAssertTrue(Subprocess.waitUntil(timeout: 60) { ((try? backup.photos().count) ?? 0) == 5 || !relay.isRunning }, relay.stderr)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { ((try? harness.status().queued.count) ?? 1) == 0 }, "the spool empties")
        XCTAssertEqual(relay.stop(), 0, relay.stderr)
        XCTAssertEqual(try backup.photos().map(\.name).sorted(), first.keys.sorted(), "the backup has every photo taken for it")
        for photo in try backup.photos() { XCTAssertEqual(photo.sha256, first[photo.name].map(SHA256.hex), "intact") }
        XCTAssertEqual(try gallery.uploadRequests().count, 8, "and the gallery nothing twice")
        XCTAssertEqual(try gallery.photos().map(\.name).sorted(), (Array(first.keys) + Array(second.keys)).sorted())
    }

    /// `relay drop --destination` names what it would forget and asks; with --yes it forgets it,
    /// and the photos that only that destination waited for leave the spool.
    func testDroppingADestinationAsksAndThenReleasesItsPhotos() throws {
        let gallery = try GalleryProcess()
        let backup = try GalleryProcess()
        try backup.setFaults(GalleryFaults(failRate: 1, failStatus: 503))
        let harness = try RelayHarness(sendingTo: gallery, note: "gallery")
        XCTAssertEqual(try harness.relay("config", "add", "--url", backup.uploadURL, "--note", "backup").status, 0)
        let relay = try harness.startRun(["--config", "gallery", "--config", "backup"])
        try harness.dropPhotos(2)
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 60) {
                ((try? gallery.photos().count) ?? 0) == 2 && ((try? backup.uploadRequests().count) ?? 0) >= 2 || !relay.isRunning
            }, relay.stderr)
        XCTAssertEqual(relay.stop(), 0, relay.stderr)

        let unconfirmed = try harness.relay("drop", "--destination", "backup")
        XCTAssertEqual(unconfirmed.status, 2, "stdin is no terminal: nothing is forgotten without --yes")
        XCTAssertTrue(unconfirmed.stdout.contains("2 photos wait for 'backup'"), unconfirmed.stdout)
        XCTAssertTrue(unconfirmed.stderr.contains("nothing was changed"), unconfirmed.stderr)
        XCTAssertEqual(try harness.status().queued.count, 2)

        let dropped = try harness.relay("drop", "--destination", "backup", "--yes")
        XCTAssertEqual(dropped.status, 0, dropped.stderr)
        XCTAssertTrue(dropped.stdout.contains("released 2 photos for backup; 2 left the spool"), dropped.stdout)
        XCTAssertEqual(try harness.status().queued.count, 0)
        let removed = try harness.relay("config", "remove", "backup")
        XCTAssertEqual(removed.status, 0, "nothing waits for it any more: \(removed.stderr)")
    }
}
