import Foundation
import TestSupport
import XCTest

/// A camera that breaks the protocol on purpose (`camera-sim --hostile`): relay says what went
/// wrong, reconnects, never crashes, never delivers a corrupt photo and never writes outside its
/// spool.
final class HostileCameraTests: XCTestCase {
    private struct Outcome {
        var relay: Subprocess
        var photos: [GalleryPhoto]
        var harness: RelayHarness
    }

    /// Runs relay against a simulator in `mode` that shoots one photo, until `expected` is logged
    /// (and a moment more, to see the reconnects), then stops it.
    private func run(
        _ mode: String, expecting expected: String, photos wanted: Int = 0,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> Outcome {
        let gallery = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "")
        let sim = try CameraSimProcess(profile: "generic", arguments: ["--initial-photos", "0", "--hostile", mode])
        defer { sim.stop() }
        let relay = try harness.startCameraRun(sim.cameraURL)
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 20) { relay.stderr.contains("standard PTP events") || relay.stderr.contains(expected) },
            relay.stderr, file: file, line: line)
        sim.shootByStdin(1)
        let seen = Subprocess.waitUntil(timeout: 20) {
            relay.stderr.contains(expected) && ((try? gallery.photos().count) ?? 0) >= wanted
        }
        XCTAssertTrue(seen, "relay never said '\(expected)':\n\(relay.stderr.suffix(3000))", file: file, line: line)
        if wanted == 0 {
            // Relay goes on: it comes back to the camera after what broke the session (the proof
            // that the moment a crash would have come has passed; a photo delivered is its own).
            let connections = { sim.log.components(separatedBy: "InitCommandRequest from").count }
            let before = connections()
            let cameBack = Subprocess.waitUntil(timeout: 30) { connections() > before || !relay.isRunning }
            XCTAssertTrue(cameBack, "relay never came back to the camera:\n\(sim.log.suffix(2000))", file: file, line: line)
        }
        XCTAssertTrue(relay.isRunning, "relay must go on: \(relay.stderr.suffix(2000))", file: file, line: line)
        XCTAssertEqual(relay.stop(signal: SIGINT, timeout: 20), 0, relay.stderr, file: file, line: line)
        XCTAssertFalse(relay.stderr.contains("Fatal error"), file: file, line: line)
        return Outcome(relay: relay, photos: try gallery.photos(), harness: harness)
    }

    func testAnOversizedPacketLengthIsRefusedWithoutAllocatingIt() throws {
        let outcome = try run("oversized-length", expecting: "broke the PTP/IP protocol: PTP/IP packet length 4294967280 exceeds the limit")
        XCTAssertTrue(outcome.relay.stderr.contains("trying again"))
        XCTAssertEqual(outcome.photos.count, 0)
    }

    func testATruncatedPacketIsAConnectionLostAndRetried() throws {
        let outcome = try run("truncated-packet", expecting: "closed the connection while relay waited for the answer to GetObjectInfo")
        XCTAssertEqual(outcome.photos.count, 0)
    }

    func testAWrongTransactionIDIsNamed() throws {
        let outcome = try run("wrong-transaction", expecting: "(GetObjectInfo (0x1008)) carried transaction id")
        XCTAssertEqual(outcome.photos.count, 0)
    }

    func testMalformedDeviceInfoStringsAreReported() throws {
        let outcome = try run("malformed-strings", expecting: "unreadable DeviceInfo: PTP data truncated")
        XCTAssertEqual(outcome.photos.count, 0)
    }

    func testDataLongerThanAnnouncedIsNeverDelivered() throws {
        let outcome = try run("overlong-data", expecting: "data phase declared")
        XCTAssertEqual(outcome.photos.count, 0, "a photo from a data phase that broke the protocol is not delivered")
        XCTAssertFalse(outcome.relay.stderr.contains("resuming"), "bytes of a violating data phase are not kept to resume from")
    }

    func testAPathInThePhotoNameStaysInsideTheSpool() throws {
        let outcome = try run("traversal-name", expecting: "uploaded x.jpg", photos: 1)
        XCTAssertEqual(outcome.photos.map(\.name), ["x.jpg"])
        let strays = try filesNamed("x.jpg", under: outcome.harness.root)
        XCTAssertEqual(strays, [], "nothing written outside the spool")
        for parent in [outcome.harness.home, outcome.harness.home.appendingPathComponent("spool")] {
            XCTAssertFalse(FileManager.default.fileExists(atPath: parent.appendingPathComponent("../../x.jpg").standardized.path))
        }
    }

    func testALongNameIsShortenedForTheGallery() throws {
        let outcome = try run("long-name", expecting: "uploaded AAAA", photos: 1)
        let name = try XCTUnwrap(outcome.photos.first?.name)
        XCTAssertTrue(name.hasSuffix(".JPG"), name)
        XCTAssertLessThanOrEqual(name.count, 128, name)
    }

    private func filesNamed(_ name: String, under root: URL) throws -> [String] {
        let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        var found: [String] = []
        while let url = walker?.nextObject() as? URL {
            if url.lastPathComponent == name { found.append(url.path) }
        }
        return found
    }
}
