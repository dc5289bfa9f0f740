import Foundation
import TestSupport
import XCTest

/// A photo is known by what the camera wrote into it, not by the object handle a session gave it
/// (PTP promises a handle only within a session). The simulator keeps its card across restarts
/// (`--card`) and can hand out handles from another base after a restart (`--handle-base`), as
/// a body switched off and on may.
final class PhotoIdentityTests: XCTestCase {
    private var gallery: GalleryProcess!
    private var harness: RelayHarness!
    private var card: URL!

    override func setUpWithError() throws {
        gallery = try GalleryProcess()
        harness = try RelayHarness(sendingTo: gallery, note: "identity")
        card = harness.root.appendingPathComponent("card")
    }

    /// One power cycle of the body and one run of relay: the body is switched on with its card,
    /// relay connects, `shots` are shot while it is connected (a Z in "connect to computer"
    /// mode announces only to a connected client), and the run ends once the gallery holds
    /// `expected` photos in all; `declinesAtStart`: the card's earlier photos are declined (and
    /// summed up) before the shots. Returns relay's output (stdout with `--json`, then stderr) and
    /// the simulator's log.
    private func powerCycle(
        _ profile: String, _ extra: [String], shots: Int, expected: Int, declinesAtStart: Bool = false,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> (json: String, relay: String, sim: String) {
        let sim = try CameraSimProcess(
            profile: profile,
            arguments: ["--card", card.path, "--initial-photos", "0", "--photo-size", "150k", "--seed", "3", "--verbose"] + extra)
        defer { sim.stop() }
        let relay = try harness.startCameraRun(sim.cameraURL, ["--json"])
        defer { _ = relay.stop(signal: SIGKILL, timeout: 5) }
        let connected = Subprocess.waitUntil(timeout: 60) { relay.stdout.contains("\"camera.connected\"") || !relay.isRunning }
        XCTAssertTrue(connected, "relay did not connect:\n\(relay.stderr)\n\(sim.log.suffix(3000))", file: file, line: line)
        if declinesAtStart {
            let lookedAt = Subprocess.waitUntil(timeout: 60) { relay.stderr.contains("were taken before") || !relay.isRunning }
            XCTAssertTrue(lookedAt, "the card's earlier photos were declined:\n\(relay.stderr)", file: file, line: line)
        }
        sim.shootByStdin(shots)
        let arrived = try Subprocess.waitUntil(timeout: 90) { try gallery.photos().count >= expected || !relay.isRunning }
        let count = try gallery.photos().count
        XCTAssertTrue(arrived, "\(count) of \(expected):\n\(relay.stderr)\n\(sim.log.suffix(3000))", file: file, line: line)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr, file: file, line: line)
        return (relay.stdout, relay.stderr, sim.log)
    }

    /// The card's JPEGs by their SHA-256: every photo the body ever shot.
    private func cardPhotos() throws -> [String] {
        try FileManager.default.contentsOfDirectory(at: card, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension.uppercased() == "JPG" }.map { SHA256.hex(try Data(contentsOf: $0)) }.sorted()
    }

    /// Issue 38's loss: a Z that gives no names, sizes or dates, restarted, gives its four new
    /// photos the handles of the four before. Each is delivered once, and none is declined.
    func testARestartedZWhoseNewPhotosGetEarlierHandlesLosesNone() throws {
        let first = try powerCycle("nikon-z-strict", [], shots: 4, expected: 4)
        XCTAssertTrue(first.sim.contains("GetPartialObjectEx (0x9431)(1002"), "the first run's photos from handle 0x1002:\n\(first.sim)")
        // Folders at 0xFFC and 0xFFD, the four earlier photos at 0xFFE–0x1001: the new ones get
        // 0x1002–0x1005 again.
        let second = try powerCycle("nikon-z-strict", ["--handle-base", "0xFFC"], shots: 4, expected: 8)
        XCTAssertTrue(second.sim.contains("GetPartialObjectEx (0x9431)(1002"), "handles given out again:\n\(second.sim)")
        XCTAssertFalse(second.relay.contains("was taken before"), second.relay)
        XCTAssertFalse(second.json.contains("photo.already_taken"), second.json)
        let delivered = try gallery.photos()
        XCTAssertEqual(delivered.map(\.sha256).sorted(), try cardPhotos(), "every photo shot, once, byte-identical")
        XCTAssertEqual(Set(delivered.compactMap(\.idempotencyKey)).count, 8)
        XCTAssertTrue(
            delivered.allSatisfy { $0.name.range(of: #"^NIKON_\d{8}_\d{8}_\d+\.JPG$"#, options: .regularExpression) != nil },
            "named by capture time and shutter count: \(delivered.map(\.name))")
    }

    /// A body that lists its card (nikon-z: GetObjectInfo denied, the card listed) restarted with
    /// its earlier photos still there under other handles: none is taken twice, each is said
    /// with what it matched, and what is shot next is taken.
    func testEarlierPhotosUnderNewHandlesAreDeclinedAndSaid() throws {
        _ = try powerCycle("nikon-z", [], shots: 3, expected: 3)
        let second = try powerCycle("nikon-z", ["--handle-base", "0x2000"], shots: 2, expected: 5, declinesAtStart: true)
        XCTAssertTrue(second.sim.contains("(2002"), "the earlier photos under new handles:\n\(second.sim)")
        let delivered = try gallery.photos()
        XCTAssertEqual(delivered.map(\.sha256).sorted(), try cardPhotos(), "none twice, none lost")
        XCTAssertEqual(delivered.count, 5)
        let declined = second.json.split(separator: "\n").filter { $0.contains("\"photo.already_taken\"") }
        XCTAssertEqual(declined.count, 3, second.json)
        XCTAssertTrue(declined.allSatisfy { $0.contains("body serial") && $0.contains("shutter count") }, "\(declined)")
        XCTAssertTrue(second.relay.contains("3 photo(s) on the card of"), second.relay)
        XCTAssertTrue(
            second.relay.contains("were taken before (or left there when relay first met the source) and are not sent again"), second.relay)
    }

    /// A photo relay cannot have taken before is never declined by the handle an earlier relay
    /// named it with: the same body, restarted by a relay that keyed photos by handle, loses
    /// nothing (the old keys count only for a photo on the card at the connection).
    func testAnOldHandleKeyDoesNotHideANewPhoto() throws {
        let seen = harness.home.appendingPathComponent("seen")
        try FileManager.default.createDirectory(at: seen, withIntermediateDirectories: true)
        _ = try powerCycle("nikon-z-strict", [], shots: 1, expected: 1)
        let log = try XCTUnwrap(
            try FileManager.default.contentsOfDirectory(at: seen, includingPropertiesForKeys: nil).first {
                $0.pathExtension == "jsonl"
            })
        // What a relay keying by handle wrote for handles 0x1003 and 0x1004.
        let handle = FileHandle(forWritingAtPath: log.path)!
        handle.seekToEndOfFile()
        for name in ["NIKON_00001003.JPG", "NIKON_00001004.JPG"] {
            handle.write(Data(#"{"file":"\#(name)","key":"0|\#(name)||","takenAt":815220000}"#.utf8 + [0x0A]))
        }
        try handle.close()
        _ = try powerCycle("nikon-z-strict", [], shots: 2, expected: 3)
        XCTAssertEqual(try gallery.photos().map(\.sha256).sorted(), try cardPhotos())
    }
}
