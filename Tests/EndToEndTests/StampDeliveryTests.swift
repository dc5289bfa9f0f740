import Foundation
import PhotoMetadata
import TestSupport
import XCTest

/// Issue 42 end to end: `relay stamp set`, then a run; what the gallery receives is read by
/// exiftool (with the Metadata Working Group composites) as a gallery would, while an archive
/// whose config says `--stamp no` gets the camera's bytes. The real relay executable, real
/// galleries, the hot folder, camera FTP and the camera simulator.
final class StampDeliveryTests: XCTestCase {
    private let stampFields = [
        "creator=Jane Doe", "credit=Jane Doe / Studio", "copyright=© {year} Jane Doe", "caption={event}, frame {seq}",
        "event=Spring Gala", "keywords=gala,2026",
    ]

    private func setStamp(_ harness: RelayHarness) throws {
        let set = try harness.relay(["stamp", "set"] + stampFields)
        XCTAssertEqual(set.status, 0, set.stderr)
        XCTAssertTrue(set.stdout.contains("stamp version 1 set"), set.stdout)
    }

    private func exiftool(_ file: URL, _ tags: [String]) throws -> [String: String] {
        try ExifTool.tags(file, tags)
    }

    /// The bytes from the first scan on: the camera's pixels.
    private func pixels(_ url: URL) throws -> [UInt8] {
        let bytes = [UInt8](try Data(contentsOf: url))
        return Array(bytes[try JPEGSegments(bytes).restStart...])
    }

    private func assertStamped(_ url: URL, original: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        let tags = try exiftool(url, ["-MWG:Creator", "-MWG:Copyright", "-MWG:Description", "-IPTC:Credit", "-IPTC:Keywords"])
        XCTAssertEqual(tags["Creator"], "Jane Doe", "\(tags)", file: file, line: line)
        XCTAssertTrue(tags["Copyright"]?.hasPrefix("© 20") == true, "\(tags)", file: file, line: line)
        XCTAssertTrue(tags["Description"]?.hasPrefix("Spring Gala, frame ") == true, "\(tags)", file: file, line: line)
        XCTAssertEqual(tags["Credit"], "Jane Doe / Studio", file: file, line: line)
        XCTAssertEqual(tags["Keywords"], "gala|2026", file: file, line: line)
        XCTAssertEqual(try pixels(url), try pixels(original), "the pixels are the camera's", file: file, line: line)
    }

    func testTheGalleryGetsTheStampAndAnUnstampedArchiveTheCamerasOriginal() throws {
        let gallery = try GalleryProcess()
        let archive = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "gallery")
        XCTAssertEqual(try harness.relay("config", "add", "--url", archive.uploadURL, "--note", "archive", "--stamp", "no").status, 0)
        try setStamp(harness)
        let tool = try XCTUnwrap(Subprocess.which("exiftool"))
        let original = harness.root.appendingPathComponent("IMG_0001.JPG")
        try CameraJPEG.write(to: original, .init(width: 640, height: 480, xmp: true, seed: 4))
        XCTAssertEqual(
            try Subprocess.run(tool, ["-q", "-overwrite_original", "-XMP-xmp:Rating=3", "-EXIF:Artist=Owner", original.path]).status, 0)
        let relay = try harness.startRun(["--config", "gallery", "--config", "archive"])
        try FileManager.default.copyItem(at: original, to: harness.dropFolder.appendingPathComponent("IMG_0001.JPG"))
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 60) {
                ((try? gallery.photos().count) ?? 0) == 1 && ((try? archive.photos().count) ?? 0) == 1 || !relay.isRunning
            }, relay.stderr)
        XCTAssertEqual(relay.stop(), 0, relay.stderr)
        let delivered = gallery.photosDirectory.appendingPathComponent("IMG_0001.JPG")
        try assertStamped(delivered, original: original)
        XCTAssertEqual(try exiftool(delivered, ["-XMP-xmp:Rating"])["Rating"], "3", "the camera's rating is kept")
        XCTAssertEqual(
            try Data(contentsOf: archive.photosDirectory.appendingPathComponent("IMG_0001.JPG")), try Data(contentsOf: original),
            "the archive gets the camera's bytes")
        let history = try harness.history().filter(\.success)
        XCTAssertEqual(history.compactMap(\.stampVersion), [1], "one stamped delivery, with the template's version")
        let table = try harness.relay("history")
        XCTAssertEqual(table.stdout.components(separatedBy: "stamp version 1").count - 1, 1, "the gallery's row says it: \(table.stdout)")
    }

    /// On a slow camera link the gallery's request starts before the camera's last byte (cut-
    /// through), and the photo arrives stamped, its pixels the camera's.
    func testCutThroughFromTheCameraStillStreamsAndIsStamped() throws {
        let camera = try CameraRun(profile: "canon-eos", ["--initial-photos", "0", "--photo-size", "3M", "--rate-limit", "1000000"])
        try setStamp(camera.harness)
        let relay = try camera.startConnected()
        camera.sim.shootByStdin(1)
        try camera.waitForPhotos(1, relay: relay)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
        XCTAssertTrue(relay.stderr.contains("(sent while downloading)"), relay.stderr)
        try assertStamped(
            camera.gallery.photosDirectory.appendingPathComponent("IMG_0001.JPG"),
            original: camera.export.appendingPathComponent("IMG_0001.JPG"))
    }

    /// Camera FTP: the upload to the gallery starts while the camera still sends the file, and
    /// the photo is stamped.
    func testCutThroughFromCameraFTPIsStamped() throws {
        let ftp = try FTPRun()
        try setStamp(ftp.harness)
        try CameraJPEG.write(to: ftp.files.appendingPathComponent("DSC_0100.JPG"), .init(width: 2400, height: 1600, seed: 9))
        let sent = try ftp.camera(["--rate", "800000", ftp.path("DSC_0100.JPG")])
        XCTAssertEqual(sent.status, 0, sent.stderr)
        try ftp.waitForPhotos(1)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 10) { ftp.relay.stderr.contains("sent while downloading") }, ftp.relay.stderr)
        XCTAssertEqual(ftp.relay.stop(), 0, ftp.relay.stderr)
        try assertStamped(
            ftp.gallery.photosDirectory.appendingPathComponent("DSC_0100.JPG"), original: ftp.files.appendingPathComponent("DSC_0100.JPG"))
    }

    /// A gallery sent a rendition gets the same fields (even one whose copy leaves the camera's
    /// metadata out), its variables read from the camera's file.
    func testARenditionCarriesTheSameStamp() throws {
        let gallery = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "gallery")
        XCTAssertEqual(
            try harness.relay("config", "add", "--url", gallery.uploadURL, "--note", "gallery", "--max-edge", "800", "--strip-metadata")
                .status, 0)
        try setStamp(harness)
        XCTAssertEqual(try harness.relay("stamp", "set", "headline={model}").status, 0)
        let relay = try harness.startRun(["--config", "gallery"])
        try CameraJPEG.write(to: harness.dropFolder.appendingPathComponent("IMG_0002.JPG"), .init(width: 1600, height: 1200, seed: 5))
        XCTAssertTrue(Subprocess.waitUntil(timeout: 60) { ((try? gallery.photos().count) ?? 0) == 1 || !relay.isRunning }, relay.stderr)
        XCTAssertEqual(relay.stop(), 0, relay.stderr)
        let tags = try exiftool(
            gallery.photosDirectory.appendingPathComponent("IMG_0002.JPG"),
            ["-MWG:Creator", "-IPTC:Credit", "-IPTC:Headline", "-ImageWidth"])
        XCTAssertEqual(tags["ImageWidth"], "800", "the rendition was sent: \(tags)")
        XCTAssertEqual(tags["Headline"], "Canon EOS R5", "{model} from the camera's file, though the copy has no EXIF: \(tags)")
        XCTAssertEqual(tags["Creator"], "Jane Doe", "\(tags)")
        XCTAssertEqual(tags["Credit"], "Jane Doe / Studio")
    }

    /// What the command says: an unknown variable is refused and the file kept, a field too long
    /// for IIM is named when set, and preview prints what a reader will see.
    func testTheStampCommandRefusesPreviewsAndSaysWhatIIMCuts() throws {
        let harness = try RelayHarness()
        let refused = try harness.relay("stamp", "set", "caption={evnt}")
        XCTAssertEqual(refused.status, 2, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("{evnt} is not a variable"), refused.stderr)
        let long = try harness.relay("stamp", "set", "creator=" + String(repeating: "A", count: 40), "city=Lyon")
        XCTAssertEqual(long.status, 0, long.stderr)
        XCTAssertTrue(long.stdout.contains("creator is 40 bytes; IPTC IIM keeps 32"), long.stdout)
        let shown = try harness.relay("stamp", "show")
        XCTAssertTrue(shown.stdout.contains("city=Lyon") && shown.stdout.contains("version 1"), shown.stdout)
        let photo = harness.root.appendingPathComponent("IMG_0003.JPG")
        try CameraJPEG.write(to: photo, .init(width: 64, height: 48, seed: 1))
        let preview = try harness.relay("stamp", "preview", photo.path)
        XCTAssertEqual(preview.status, 0, preview.stderr)
        XCTAssertTrue(preview.stdout.contains("city: Lyon") && preview.stdout.contains("IPTC IIM keeps its first 32 bytes"), preview.stdout)
        let notJPEG = harness.root.appendingPathComponent("notes.txt")
        try Data("hello".utf8).write(to: notJPEG)
        XCTAssertTrue(try harness.relay("stamp", "preview", notJPEG.path).stdout.contains("without the stamp: it is not a JPEG"))
        XCTAssertEqual(try harness.relay("stamp", "clear").status, 0)
        XCTAssertTrue(try harness.relay("stamp", "show").stdout.contains("no stamp is set"))
    }

    /// An S3 bucket (SeaweedFS) is sent the stamped photo (its `x-amz-checksum-sha256` is
    /// computed over the stamped header, then the camera's bytes): the store takes it at the
    /// first attempt and boto3 reads it back stamped.
    func testAnS3BucketGetsTheStampedPhotoUnderItsChecksum() throws {
        let store = try SeaweedFSProcess()
        defer { store.stop() }
        try store.createBucket("event")
        let harness = try RelayHarness()
        XCTAssertEqual(
            try harness.relay("config", "add", "--url", "s3://event/{name}", "--endpoint", store.endpoint, "--note", "bucket").status, 0)
        harness.environment["AWS_ACCESS_KEY_ID"] = store.accessKey
        harness.environment["AWS_SECRET_ACCESS_KEY"] = store.secretKey
        try setStamp(harness)
        let original = harness.root.appendingPathComponent("IMG_0004.JPG")
        try CameraJPEG.write(to: original, .init(width: 640, height: 480, xmp: true, seed: 6))
        let relay = try harness.startRun()
        defer { _ = relay.stop(signal: SIGKILL) }
        try FileManager.default.copyItem(at: original, to: harness.dropFolder.appendingPathComponent("IMG_0004.JPG"))
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 60) { ((try? harness.history()) ?? []).contains(where: \.success) || !relay.isRunning },
            relay.stderr)
        XCTAssertEqual(relay.stop(), 0, relay.stderr)
        let stored = harness.root.appendingPathComponent("stored.jpg")
        try store.body(of: "IMG_0004.JPG", in: "event").write(to: stored)
        try assertStamped(stored, original: original)
        XCTAssertEqual(try harness.history().filter(\.success).compactMap(\.stampVersion), [1])
        XCTAssertEqual(try harness.history().count, 1, "taken at the first attempt")
    }
}
