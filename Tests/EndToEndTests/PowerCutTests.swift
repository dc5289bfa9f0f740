import Foundation
import TestSupport
import XCTest

/// What a power cut leaves of relay's state, with RELAY_HOME on `scripts/powerloss_fs.py`: relay
/// is killed and every write that was not synced (file data, and names whose folder was not
/// synced) is dropped before it starts again. The random-moment suite is `scripts/chaos.sh
/// powerloss`; these are its cases a photographer would describe.
final class PowerCutTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        root = try TestPaths.makeTemporaryDirectory("power-cut")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
    }

    /// A camera whose 226 was lost in the cut sends the photo again: the same bytes under the
    /// same name are recognised by content (the photo already left the spool: only the seen
    /// log, which must have survived the cut, knows it) and answered 226 without a second
    /// delivery; different bytes under the same name are a second photo.
    func testAnFTPResendAfterACutIsDeliveredOnceAndANewPhotoUnderItsNameToo() throws {
        let disk = try PowerLossMount(in: root)
        let ftp = try FTPRun(home: disk.mount.appendingPathComponent("home"))
        let photo = try ftp.photo("IMG_0001.JPG", bytes: 200_000, seed: 31)
        XCTAssertTrue(try ftp.camera([ftp.path("IMG_0001.JPG")]).stdout.hasPrefix("IMG_0001.JPG 226"))
        try ftp.waitForPhotos(1)
        _ = ftp.relay.stop(signal: SIGKILL)
        try disk.cut()
        try ftp.restart()
        let again = try ftp.camera([ftp.path("IMG_0001.JPG")])
        XCTAssertTrue(again.stdout.hasPrefix("IMG_0001.JPG 226"), again.stdout + again.stderr)
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) { ftp.relay.stderr.contains("IMG_0001.JPG was taken before (matched ") },
            ftp.relay.stderr)
        XCTAssertTrue(ftp.relay.stderr.contains("in the FTP seen log"), ftp.relay.stderr)
        let other = try ftp.photo("IMG_0001.JPG", bytes: 210_000, seed: 32)
        XCTAssertTrue(try ftp.camera([ftp.path("IMG_0001.JPG")]).stdout.hasPrefix("IMG_0001.JPG 226"))
        try ftp.waitForPhotos(2)
        XCTAssertEqual(try ftp.gallery.photos().map(\.sha256).sorted(), [SHA256.hex(photo), SHA256.hex(other)].sorted())
    }

    /// The spool's folder cannot be synced (EIO from the file system): the photo is not
    /// committed, relay says why, and it stays in the hot folder; once the disk is sound again
    /// it is delivered, once. An ignored folder sync would have sent a photo whose name in the
    /// spool a cut could take away.
    func testASpoolFolderThatCannotBeSyncedKeepsThePhotoWhereItIs() throws {
        let gallery = try GalleryProcess()
        let harness = try RelayHarness()
        let disk = try PowerLossMount(in: root)
        harness.environment["RELAY_HOME"] = disk.mount.appendingPathComponent("home").path
        XCTAssertEqual(try harness.relay("config", "add", "--url", gallery.uploadURL).status, 0)
        // A first run makes the spool's folders; the disk then starts failing to sync the spool.
        var relay = try harness.startRun()
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { relay.stderr.contains("watching for new photos") }, relay.stderr)
        XCTAssertEqual(relay.stop(signal: SIGINT, timeout: 30), 0, relay.stderr)
        try disk.cut(faults: ["--fail-fsyncdir", "/home/spool"])
        relay = try harness.startRun()
        let sent = try harness.dropPhotos(1)
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) { relay.stderr.contains("IMG_0001.JPG stays in the folder for now") }, relay.stderr)
        XCTAssertTrue(relay.stderr.contains("fsync folder"), "the failed folder sync is named:\n\(relay.stderr)")
        XCTAssertEqual(relay.stop(signal: SIGINT, timeout: 30), 0, relay.stderr)
        XCTAssertEqual(try gallery.photos().count, 0)
        try disk.cut()
        relay = try harness.startRun()
        defer { _ = relay.stop(signal: SIGKILL) }
        XCTAssertTrue(try Subprocess.waitUntil(timeout: 60) { try gallery.photos().count >= 1 }, relay.stderr)
        XCTAssertEqual(try gallery.photos().map(\.sha256), sent.values.map { SHA256.hex($0) })
    }
}
