import Foundation
import TestSupport
import XCTest

/// A real full disk: relay's state folder on a 2 MiB tmpfs. Photos that do not fit stay in the
/// hot folder, relay says why, and takes them once uploads have made room.
final class FullDiskTests: XCTestCase {
    func testFullDiskKeepsPhotosAtTheSourceUntilThereIsRoom() throws {
        let harness = try RelayHarness()
        try FileManager.default.createDirectory(at: harness.home, withIntermediateDirectories: true)
        let mount = try Subprocess.run(URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=2m", "tmpfs", harness.home.path])
        guard mount.status == 0 else {
            throw XCTSkip("needs permission to mount a tmpfs (root on Linux): \(mount.stderr)")
        }
        defer { _ = try? Subprocess.run(URL(fileURLWithPath: "/bin/umount"), ["-l", harness.home.path]) }

        let gallery = try GalleryProcess(arguments: ["--delay", "1"])
        XCTAssertEqual(try harness.relay("config", "add", "--url", gallery.uploadURL).status, 0)
        // In the folder before relay starts: it meets all four at once, and two fill the disk
        // whatever the machine's load (dropped one by one, a slow writer lets uploads keep up).
        var photos: [String: Data] = [:]
        for number in 1...4 {
            let name = String(format: "BIG_%04d.JPG", number)
            photos[name] = try JPEGFixture.write(to: harness.dropFolder.appendingPathComponent(name), count: 700_000, seed: UInt64(number))
        }
        let relay = try harness.startRun(["--workers", "1"])
        let arrived = try Subprocess.waitUntil(timeout: 120) { try gallery.photos().count == 4 || !relay.isRunning }
        let count = try gallery.photos().count
        XCTAssertTrue(arrived, "photos at the gallery: \(count); relay:\n\(relay.stderr.suffix(3000))")
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
        XCTAssertTrue(relay.stderr.contains("is full"), "the full disk was reported:\n\(relay.stderr.suffix(3000))")
        for photo in try gallery.photos() {
            XCTAssertEqual(photo.sha256, SHA256.hex(try XCTUnwrap(photos[photo.name])))
        }
        for name in photos.keys {
            XCTAssertTrue(
                FileManager.default.fileExists(atPath: harness.dropFolder.appendingPathComponent(name).path),
                "relay never removes the photographer's files")
        }
    }
}
