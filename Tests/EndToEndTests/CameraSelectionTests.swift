import Foundation
import TestSupport
import XCTest

/// Issue 41: the photographer selects in the camera, and `--send selected` sends exactly that.
/// The real relay executable, real galleries, the camera simulator over real sockets; the
/// simulator protects and rates shots as each vendor's body does (its events, its flags, the
/// XMP rewritten in the file on the card).
final class CameraSelectionTests: XCTestCase {
    /// A burst of 8 on `profile`: shot 2 protected and shot 3 rated before relay connects,
    /// shot 6 protected once the backup has it (and, with `transferButton`, shot 7 sent with the
    /// body's transfer button). The gallery gets exactly those, the backup all 8, each
    /// downloaded once.
    private func selectsThreeOfEight(
        _ profile: String, _ simArguments: [String] = [], transferButton: Bool = false, throughLibgphoto2: Bool = false
    ) throws {
        let camera = try CameraRun(profile: profile, ["--initial-photos", "4"] + simArguments, note: "gallery")
        let added = try camera.harness.relay("config", "add", "--url", camera.gallery.uploadURL, "--note", "gallery", "--send", "selected")
        XCTAssertEqual(added.status, 0, added.stderr)
        let backup = try GalleryProcess()
        XCTAssertEqual(try camera.harness.relay("config", "add", "--url", backup.uploadURL, "--note", "backup").status, 0)
        camera.sim.control("protect 2")
        camera.sim.control("rate 3 4")
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { camera.sim.log.contains("rate ") }, camera.sim.log)

        let arguments = ["--config", "gallery", "--config", "backup", "--include-existing", "--json"]
        let relay =
            throughLibgphoto2
            ? try camera.harness.startCameraRun("gphoto2:" + camera.sim.gphotoPort, arguments) : try camera.startConnected(arguments)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 60) { relay.stdout.contains("camera.connected") || !relay.isRunning }, relay.stderr)
        camera.sim.shootByStdin(4)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 90) { ((try? backup.photos().count) ?? 0) == 8 || !relay.isRunning }, relay.stderr)
        try camera.waitForPhotos(2, relay: relay)
        let names = try backup.photos().map(\.name).sorted()
        guard names.count == 8 else { return XCTFail("the backup has \(names)") }
        let sixth = names[5]
        camera.sim.control("protect 6")
        var selected = [names[1], names[2], sixth]
        if transferButton {
            camera.sim.control("transfer 7")
            selected.append(names[6])
        }
        try camera.waitForPhotos(selected.count, relay: relay)
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 10) { relay.stdout.contains("\"photo.selected\"") },
            "a photo.selected event:\n\(relay.stdout.suffix(3000))")
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
        let held = try camera.harness.status().queued.map(\.uploadName).sorted()
        XCTAssertEqual(held, names.filter { !selected.contains($0) }, "the others wait, held for the gallery")
        XCTAssertEqual(try camera.gallery.photos().map(\.name).sorted(), selected, relay.stderr)
        XCTAssertEqual(try backup.uploadRequests().count, 8, "the backup got each photo once")
        XCTAssertEqual(try camera.gallery.uploadRequests().count, selected.count, "the gallery got each selected photo once")
        XCTAssertEqual(
            relay.stdout.components(separatedBy: "\"photo.spooled\"").count - 1, 8,
            "each photo downloaded once:\n\(relay.stdout.suffix(4000))")
        XCTAssertTrue(relay.stdout.contains("\"marks\":\"protected\""), String(relay.stdout.suffix(4000)))
    }

    func testAStandardBodySelectsWithObjectInfoChanged() throws {
        try selectsThreeOfEight("generic")
    }

    func testANikonSelectsWithObjectInfoChangedInItsEventList() throws {
        try selectsThreeOfEight("nikon")
    }

    func testACanonBodySendingBothEventsSelectsAndItsTransferButtonToo() throws {
        try selectsThreeOfEight("canon-eos", transferButton: true)
    }

    func testACanonBodySendingOnlyObjectContentChangedSelects() throws {
        try selectsThreeOfEight("canon-eos", ["--canon-change-events", "content"])
    }

    func testACanonR5MarkIISendingOnlyItsObjectInfoChangedSelects() throws {
        try selectsThreeOfEight("canon-r5m2", ["--canon-change-events", "info", "--capture-to", "card"], transferButton: true)
    }

    /// libgphoto2 reads the simulator's ObjectInfoChanged as GP_EVENT_FILE_CHANGED and gives a
    /// protected file no delete permission: the gphoto2 road selects as well.
    func testThroughLibgphoto2AFileChangedEventSelects() throws {
        try selectsThreeOfEight("generic", throughLibgphoto2: true)
    }
}
