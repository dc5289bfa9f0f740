import Foundation
import TestSupport
import XCTest

/// What an end-to-end camera test starts from: a real gallery, a relay whose selected config
/// sends to it, and the camera simulator over real sockets, exporting a copy of every photo it
/// makes; ``start(_:)`` runs `relay run --camera` on the simulator. The checks most such tests
/// make are here too, each failing with what relay and the camera said.
final class CameraRun {
    let gallery: GalleryProcess
    let harness: RelayHarness
    let sim: CameraSimProcess
    /// Where the simulator writes a copy of every photo it makes (`--export`).
    let export: URL

    /// Starts the gallery (with `galleryArguments`), the harness and `relay camera-sim --profile
    /// PROFILE --export … SIM_ARGUMENTS…`, listening on `host:port` (by default a free port of
    /// 127.0.0.1; a fixed address is for tests that find the camera with `--camera auto`).
    init(
        profile: String, _ simArguments: [String] = [], galleryArguments: [String] = [], note: String = "camera e2e",
        host: String = "127.0.0.1", port: UInt16 = 0
    ) throws {
        gallery = try GalleryProcess(arguments: galleryArguments)
        harness = try RelayHarness(sendingTo: gallery, note: note)
        export = harness.root.appendingPathComponent("export")
        sim = try CameraSimProcess(profile: profile, arguments: ["--export", export.path] + simArguments, host: host, port: port)
    }

    /// `relay run --camera SIM EXTRA…`, with fast retry timings.
    func start(_ extra: [String] = []) throws -> Subprocess {
        try harness.startCameraRun(sim.cameraURL, extra)
    }

    /// `start`, then waits until relay says it is connected to the camera.
    func startConnected(_ extra: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws -> Subprocess {
        let relay = try start(extra)
        waitForLog(relay, "connected to", file: file, line: line)
        return relay
    }

    /// Waits until the gallery holds `count` photos, failing (with both logs) if relay exits first
    /// or `timeout` passes.
    func waitForPhotos(
        _ count: Int, relay: Subprocess, timeout: TimeInterval = 120, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let gallery = self.gallery
        let arrived = try Subprocess.waitUntil(timeout: timeout) { try gallery.photos().count >= count || !relay.isRunning }
        let have = try gallery.photos().count
        XCTAssertTrue(
            arrived && relay.isRunning,
            "\(have) of \(count) photos arrived; relay stderr:\n\(relay.stderr.suffix(4000))\nsimulator:\n\(sim.log.suffix(3000))",
            file: file, line: line)
    }

    /// Waits until relay's log says `text`, failing if relay exits first or `timeout` passes.
    func waitForLog(_ relay: Subprocess, _ text: String, timeout: TimeInterval = 60, file: StaticString = #filePath, line: UInt = #line) {
        relay.assertSays(text, timeout: timeout, file: file, line: line)
    }

    /// Checks every photo the gallery received against the simulator's export of the same name.
    func assertByteIdentical(file: StaticString = #filePath, line: UInt = #line) throws {
        for photo in try gallery.photos() {
            let original = try Data(contentsOf: export.appendingPathComponent(photo.name))
            XCTAssertEqual(photo.sha256, SHA256.hex(original), "\(photo.name) differs from what the camera holds", file: file, line: line)
        }
    }

    /// Ends a run whose photos all arrived, in a way that proves no more can: relay has exited
    /// (it sends nothing after that) and its spool is empty (nothing was waiting to be sent), so
    /// the gallery's counts that follow are final. A pause instead would prove nothing.
    func stopWithNothingLeft(_ relay: Subprocess, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr, file: file, line: line)
        let status = try harness.status()
        XCTAssertEqual(
            status.queued.count + status.inFlight.count, 0, "nothing left to send: \(status.queued.map(\.uploadName))",
            file: file, line: line)
    }
}

extension Subprocess {
    /// Waits until this process's stderr says `text`, failing if it exits first or `timeout` passes.
    func assertSays(_ text: String, timeout: TimeInterval = 60, file: StaticString = #filePath, line: UInt = #line) {
        let seen = Subprocess.waitUntil(timeout: timeout) { self.stderr.contains(text) || !self.isRunning }
        XCTAssertTrue(
            seen && stderr.contains(text), "relay never said '\(text)':\n\(stderr.suffix(4000))", file: file, line: line)
    }
}
