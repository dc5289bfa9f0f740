import Foundation
import TestSupport
import XCTest

/// `relay run` to a WebDAV share (Apache mod_dav on loopback), as issue 26 tried it: a folder
/// that does not exist yet is made, and every photo arrives whole under its own name.
final class WebDAVDeliveryTests: XCTestCase {
    func testPhotosReachAFolderThatDidNotExist() throws {
        let dav = try ApacheDAVProcess()
        defer { dav.stop() }
        let harness = try RelayHarness()
        harness.environment["DAV_PASSWORD"] = dav.password
        let added = try harness.relay(
            "config", "add", "--url", "dav://\(dav.user)@127.0.0.1:\(dav.port)/archive/wedding",
            "--password", "${DAV_PASSWORD}", "--note", "nas")
        XCTAssertEqual(added.status, 0, added.stderr)
        let relay = try harness.startRun()
        defer { _ = relay.stop(signal: SIGKILL) }
        let photos = try harness.dropPhotos(3)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 60) { dav.files().count == 3 || !relay.isRunning }, relay.stderr)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { ((try? harness.status().queued.count) ?? 1) == 0 }, "the spool empties")
        XCTAssertEqual(relay.stop(), 0, relay.stderr)
        XCTAssertEqual(dav.files(), photos.keys.sorted().map { "archive/wedding/\($0)" })
        for name in photos.keys {
            XCTAssertEqual(
                SHA256.hex(try Data(contentsOf: dav.root.appendingPathComponent("archive/wedding/\(name)"))),
                photos[name].map(SHA256.hex))
        }
        let history = try harness.history()
        XCTAssertEqual(history.filter(\.success).count, 3)
        XCTAssertTrue(history.allSatisfy { $0.requestSummary.hasPrefix("PUT dav://photo@127.0.0.1") }, "\(history.map(\.requestSummary))")
        XCTAssertFalse(
            try String(contentsOf: harness.home.appendingPathComponent("configs.json"), encoding: .utf8).contains(dav.password),
            "the password stays in the environment")
    }
}
