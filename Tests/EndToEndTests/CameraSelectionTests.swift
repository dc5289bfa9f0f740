import Foundation
import TestSupport
import XCTest

/// Issue 41: the photographer selects in the camera, and `--send selected` sends exactly that.
/// The real relay executable, real galleries, the camera simulator over real sockets; the
/// simulator protects and rates shots as each vendor's body does (its events, its flags, the
/// XMP rewritten in the file on the card).
final class CameraSelectionTests: XCTestCase {
    /// The camera run's gallery sends selected photos only; a backup (returned) gets all.
    private func selectingGalleryAndBackup(_ camera: CameraRun, file: StaticString = #filePath, line: UInt = #line) throws
        -> GalleryProcess
    {
        let added = try camera.harness.relay("config", "add", "--url", camera.gallery.uploadURL, "--note", "gallery", "--send", "selected")
        XCTAssertEqual(added.status, 0, added.stderr, file: file, line: line)
        let backup = try GalleryProcess()
        XCTAssertEqual(
            try camera.harness.relay("config", "add", "--url", backup.uploadURL, "--note", "backup").status, 0, file: file, line: line)
        return backup
    }

    /// A burst of 8 on `profile`: shot 2 protected and shot 3 rated before relay connects,
    /// shot 6 protected once the backup has it (and, with `transferButton`, shot 7 sent with the
    /// body's transfer button). The gallery gets exactly those, the backup all 8, each
    /// downloaded once.
    private func selectsThreeOfEight(
        _ profile: String, _ simArguments: [String] = [], transferButton: Bool = false, throughLibgphoto2: Bool = false
    ) throws {
        let camera = try CameraRun(profile: profile, ["--initial-photos", "4"] + simArguments, note: "gallery")
        let backup = try selectingGalleryAndBackup(camera)
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

    /// A protection withdrawn before the gallery had the photo holds it again: its first
    /// attempt fails (503, Retry-After 5 s), the shot is unprotected meanwhile, and it is never
    /// sent, while a shot protected after that retry was due arrives.
    func testAnUnprotectBeforeTheSendHoldsThePhotoAgain() throws {
        let camera = try CameraRun(
            profile: "generic", ["--initial-photos", "0"],
            galleryArguments: ["--fail-first", "1", "--fail-status", "503", "--retry-after", "5"], note: "gallery")
        XCTAssertEqual(
            try camera.harness.relay("config", "add", "--url", camera.gallery.uploadURL, "--note", "gallery", "--send", "selected").status,
            0)
        let relay = try camera.startConnected(["--json"])
        camera.sim.shootByStdin(2)
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 60) { relay.stdout.components(separatedBy: "\"photo.held\"").count - 1 == 2 || !relay.isRunning },
            relay.stderr)
        camera.sim.control("protect 1")
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { ((try? camera.gallery.uploadRequests().count) ?? 0) == 1 }, relay.stderr)
        camera.sim.control("unprotect 1")
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) { relay.stdout.contains("\"heldAgain\":[\"gallery\"]") || !relay.isRunning },
            "held again before its retry:\n\(relay.stdout.suffix(3000))")
        camera.sim.control("protect 2")
        try camera.waitForPhotos(1, relay: relay)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
        XCTAssertEqual(try camera.gallery.photos().map(\.name), ["DSC00002.JPG"], "the unprotected shot never went")
        XCTAssertEqual(try camera.harness.status().queued.map(\.uploadName), ["DSC00001.JPG"], "it waits, held")
    }

    /// A shot rated on the body while relay was stopped is rewritten on the card (another
    /// size): the next run's listing knows it by its name and capture date, does not download
    /// it again, and reads its rating, which sends it to the gallery.
    func testAShotRatedWhileRelayWasAwayIsReadNotTakenAgain() throws {
        let camera = try CameraRun(profile: "generic", ["--initial-photos", "0"], note: "gallery")
        let backup = try selectingGalleryAndBackup(camera)
        var relay = try camera.startConnected(["--config", "gallery", "--config", "backup"])
        camera.sim.shootByStdin(3)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 60) { ((try? backup.photos().count) ?? 0) == 3 || !relay.isRunning }, relay.stderr)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
        camera.sim.control("rate 2 5")
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { camera.sim.log.contains("rate DSC00002.JPG") }, camera.sim.log)
        relay = try camera.startConnected(["--config", "gallery", "--config", "backup", "--json"])
        try camera.waitForPhotos(1, relay: relay)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
        XCTAssertEqual(try camera.gallery.photos().map(\.name), ["DSC00002.JPG"])
        XCTAssertFalse(relay.stdout.contains("\"photo.spooled\""), "nothing downloaded again:\n\(relay.stdout.suffix(3000))")
        XCTAssertEqual(try backup.uploadRequests().count, 3, "the backup got each photo once")
    }

    /// The transfer button on a photo left on the card (there before relay's first connection)
    /// takes it, selected; captures kept in camera memory, each announced with the same
    /// RequestObjectTransfer record, are taken as captures, not as selections.
    func testTheTransferButtonTakesAPhotoLeftOnTheCardAndCapturesInMemoryAreNotSelections() throws {
        let camera = try CameraRun(profile: "canon-eos", ["--initial-photos", "3", "--capture-to", "memory"], note: "gallery")
        let backup = try selectingGalleryAndBackup(camera)
        let relay = try camera.startConnected(["--config", "gallery", "--config", "backup", "--json"])
        camera.sim.shootByStdin(2)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 60) { ((try? backup.photos().count) ?? 0) == 2 || !relay.isRunning }, relay.stderr)
        camera.sim.control("transfer 2")
        try camera.waitForPhotos(1, relay: relay)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { ((try? backup.photos().count) ?? 0) == 3 || !relay.isRunning }, relay.stderr)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
        XCTAssertEqual(try camera.gallery.photos().map(\.name), ["IMG_0002.JPG"], "only the photo the button sent")
        XCTAssertEqual(try backup.uploadRequests().count, 3, "two captures and the sent photo, each once")
        XCTAssertEqual(try camera.harness.status().queued.count, 2, "the captures wait, held for the gallery")
    }

    /// An EOS body that shows a protection only in its GetObjectInfoEx listing (the flags byte
    /// libgphoto2 reads, ptp.c `ptp_list_folder_eos`): relay asks the listing when the body says
    /// a shot changed, and the protected shot goes live.
    func testACanonProtectionShownOnlyInItsListingSelects() throws {
        let camera = try CameraRun(profile: "canon-eos", ["--initial-photos", "0", "--canon-protection", "listing"], note: "gallery")
        let backup = try selectingGalleryAndBackup(camera)
        let relay = try camera.startConnected(["--config", "gallery", "--config", "backup"])
        camera.sim.shootByStdin(3)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 60) { ((try? backup.photos().count) ?? 0) == 3 || !relay.isRunning }, relay.stderr)
        camera.sim.control("protect 2")
        try camera.waitForPhotos(1, relay: relay)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
        XCTAssertEqual(try camera.gallery.photos().map(\.name), ["IMG_0002.JPG"])
    }
}

/// Over camera FTP only a rating in the file can select (protection is a card attribute the
/// upload does not carry): the FTP receiver reads it as the photo is committed.
final class FTPRatingSelectionTests: XCTestCase {
    func testARatingWrittenInTheUploadedFileSelectsIt() throws {
        let ftp = try FTPRun(config: ["--send", "selected", "--min-rating", "3"])
        let exiftool = try XCTUnwrap(Subprocess.which("exiftool"), "exiftool (libimage-exiftool-perl) is a test dependency")
        let url = "ftp://127.0.0.1:\(ftp.port)/DCIM/100CANON/"
        for (seed, (name, tags)) in [("IMG_0001.JPG", ["-XMP-xmp:Rating=4"]), ("IMG_0002.JPG", ["-EXIF:Rating=2"]), ("IMG_0003.JPG", [])]
            .enumerated()
        {
            try CameraJPEG.write(to: ftp.files.appendingPathComponent(name), .init(width: 320, height: 240, seed: seed + 1))
            if !tags.isEmpty {
                XCTAssertEqual(try Subprocess.run(exiftool, ["-q", "-overwrite_original"] + tags + [ftp.path(name)]).status, 0)
            }
            let sent = try ftp.client("curl", ["-sS", "--ftp-create-dirs", "-u", "alice:alice-secret", "-T", ftp.path(name), url])
            XCTAssertEqual(sent.status, 0, sent.stderr)
        }
        try ftp.waitForPhotos(1)
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) {
                let status = try? ftp.harness.status()
                return status.map { $0.queued.count == 2 } ?? false
            }, ftp.relay.stderr)
        XCTAssertEqual(ftp.relay.stop(), 0, ftp.relay.stderr)
        XCTAssertEqual(try ftp.gallery.photos().map(\.name), ["IMG_0001.JPG"], "four stars select it; two are below three")
        let listed = try ftp.harness.relay("review", "list")
        XCTAssertTrue(listed.stdout.contains("IMG_0002.JPG") && listed.stdout.contains("★★"), listed.stdout)
    }
}
