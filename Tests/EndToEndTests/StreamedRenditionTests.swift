import Foundation
import TestSupport
import XCTest

/// Issue 30: a photo's rendition is decoded while the photo downloads, from the growing spool
/// file, on every road that offers a download (PTP/IP, the FTP receiver), and it is the
/// rendition `relay rendition` makes of the finished file, byte for byte, whatever pieces the
/// photo came in, a dropped link and a resumed download included.
final class StreamedRenditionTests: XCTestCase {
    private let edge = "1024"

    /// `relay rendition` of each file: the rendition of the finished photo, by the photo's name.
    private func renditionsOfFinishedFiles(_ harness: RelayHarness, _ files: [URL]) throws -> [String: String] {
        var hashes: [String: String] = [:]
        for file in files {
            let output = harness.root.appendingPathComponent("reference-\(file.lastPathComponent)")
            let made = try harness.relay("rendition", file.path, "--max-edge", edge, "-o", output.path)
            XCTAssertEqual(made.status, 0, made.stderr)
            hashes[file.lastPathComponent] = SHA256.hex(try Data(contentsOf: output))
        }
        return hashes
    }

    /// Shoots `count` photos, each once the one before is in the gallery (a single download at a
    /// time, so that each is decoded while it arrives).
    private func shootOneByOne(_ count: Int, _ camera: CameraSimProcess, _ gallery: GalleryProcess, _ relay: Subprocess) throws {
        for shot in 1...count {
            camera.shootByStdin()
            let arrived = try Subprocess.waitUntil(timeout: 90) { try gallery.photos().count >= shot || !relay.isRunning }
            XCTAssertTrue(arrived, "shot \(shot); relay:\n\(relay.stderr.suffix(3000))\ncamera:\n\(camera.log.suffix(2000))")
        }
    }

    /// The `rendition.made` events of a `--json` run, by photo name.
    private func renditionEvents(_ relay: Subprocess) -> [String: [String: Any]] {
        var events: [String: [String: Any]] = [:]
        for line in relay.stdout.split(separator: "\n") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["type"] as? String == "rendition.made", let name = object["name"] as? String
            else { continue }
            events[name] = object
        }
        return events
    }

    func testACameraDownloadInIrregularPiecesWithADroppedLinkGetsTheRenditionOfTheFinishedFile() throws {
        let gallery = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "", ["--max-edge", edge])
        let card = harness.root.appendingPathComponent("card")
        try FileManager.default.createDirectory(at: card, withIntermediateDirectories: true)
        let landscape = card.appendingPathComponent("A.JPG")
        let portrait = card.appendingPathComponent("B.JPG")
        try CameraJPEG.write(to: landscape, .init(width: 2400, height: 1600, gps: true, seed: 41))
        try CameraJPEG.write(to: portrait, .init(width: 2400, height: 1600, orientation: 6, xmp: true, seed: 42))
        let expected = try renditionsOfFinishedFiles(harness, [landscape, portrait])

        // Shots take the card's photos in turn; the link is slow (each photo takes about a
        // second), splits packets at random and drops during the third transfer.
        let camera = try CameraSimProcess(
            profile: "generic",
            arguments: [
                "--photos", card.path, "--random-split", "--rate-limit", "2M", "--drop-during-transfer", "3", "--seed", "30",
            ])
        defer { _ = camera.stop() }
        let relay = try harness.startCameraRun(camera.cameraURL, ["--json"])
        defer { _ = relay.stop(signal: SIGKILL) }
        XCTAssertTrue(Subprocess.waitUntil(timeout: 60) { relay.stderr.contains("connected to") }, relay.stderr)
        try shootOneByOne(4, camera, gallery, relay)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)

        let photos = try gallery.photos()
        XCTAssertEqual(photos.count, 4)
        // Shots 1 and 3 are A, 2 and 4 are B: each the rendition of the finished file.
        let sorted = photos.sorted { $0.name < $1.name }
        XCTAssertEqual(sorted.map(\.sha256), [expected["A.JPG"], expected["B.JPG"], expected["A.JPG"], expected["B.JPG"]])
        XCTAssertTrue(relay.stderr.contains("resuming"), "the dropped link resumed a download:\n\(relay.stderr)")
        let events = renditionEvents(relay)
        XCTAssertEqual(events.count, 4, relay.stdout)
        for (name, event) in events {
            XCTAssertEqual(event["duringDownload"] as? Bool, true, "\(name) was decoded as it downloaded: \(event)")
        }
        // An upright photo's rendition went out as it was made (its length unknown: chunked);
        // a photo to be turned has its rendition encoded once complete, and sent with a length.
        let requests = try gallery.settledUploadRequests().filter { $0.statusCode.map { (200..<300).contains($0) } ?? false }
        for (index, photo) in sorted.enumerated() {
            let request = try XCTUnwrap(requests.first { $0.idempotencyKey == photo.idempotencyKey }, photo.name)
            let streamed = index % 2 == 0
            XCTAssertEqual(request.headers["transfer-encoding"], streamed ? "chunked" : nil, "\(photo.name): \(request.headers)")
        }
    }

    /// The same through libgphoto2 (the code path of a USB camera), which downloads in pieces.
    func testALibgphoto2DownloadIsDecodedAndSentAsItArrives() throws {
        let gallery = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "", ["--max-edge", edge])
        let card = harness.root.appendingPathComponent("card")
        try FileManager.default.createDirectory(at: card, withIntermediateDirectories: true)
        let landscape = card.appendingPathComponent("A.JPG")
        try CameraJPEG.write(to: landscape, .init(width: 2400, height: 1600, seed: 45))
        let expected = try renditionsOfFinishedFiles(harness, [landscape])
        let camera = try CameraSimProcess(profile: "generic", arguments: ["--photos", card.path, "--rate-limit", "2M"])
        defer { _ = camera.stop() }
        let relay = try harness.startCameraRun("gphoto2:" + camera.gphotoPort, ["--json"])
        defer { _ = relay.stop(signal: SIGKILL) }
        XCTAssertTrue(Subprocess.waitUntil(timeout: 60) { relay.stderr.contains("were already on the card") }, relay.stderr)
        try shootOneByOne(2, camera, gallery, relay)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
        XCTAssertEqual(try gallery.photos().map(\.sha256), [expected["A.JPG"], expected["A.JPG"]])
        let events = renditionEvents(relay)
        XCTAssertEqual(events.count, 2, relay.stdout)
        XCTAssertTrue(events.values.allSatisfy { $0["duringDownload"] as? Bool == true }, "\(events)")
        let requests = try gallery.settledUploadRequests().filter { $0.statusCode.map { (200..<300).contains($0) } ?? false }
        XCTAssertTrue(requests.allSatisfy { $0.headers["transfer-encoding"] == "chunked" }, "\(requests.map(\.headers))")
    }

    func testAnFTPUploadIsDecodedAsItArrivesAndACutOneStartsAgainOnItsResume() throws {
        let ftp = try FTPRun(extra: ["--json"], config: ["--max-edge", edge])
        let photo = ftp.files.appendingPathComponent("DSC_0300.JPG")
        try CameraJPEG.write(to: photo, .init(width: 2400, height: 1600, seed: 43))
        let expected = try renditionsOfFinishedFiles(ftp.harness, [photo])
        let size = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: photo.path)[.size] as? Int)
        // Cut two thirds in, then resumed: the rendition started on the cut upload is dropped.
        XCTAssertEqual(try ftp.camera(["--rate", "800000", "--die-after", "\(size * 2 / 3)", photo.path]).status, 3)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { ftp.relay.stderr.contains("kept for a resume") }, ftp.relay.stderr)
        let resumed = try ftp.camera(["--rate", "800000", "--resume", photo.path])
        XCTAssertTrue(resumed.stdout.hasPrefix("DSC_0300.JPG 226"), resumed.stdout + resumed.stderr)
        let cameraDone = Date().timeIntervalSince1970
        try ftp.waitForPhotos(1)
        XCTAssertEqual(try ftp.gallery.photos().map(\.sha256), [expected["DSC_0300.JPG"]])
        // The rendition's upload began while the camera was still sending.
        let request = try XCTUnwrap(try ftp.gallery.settledUploadRequests().last)
        XCTAssertEqual(request.headers["transfer-encoding"], "chunked")
        XCTAssertLessThan(request.time, cameraDone - 0.3, "the rendition was sent as it was made")
        XCTAssertTrue(Subprocess.waitUntil(timeout: 10) { self.renditionEvents(ftp.relay).count == 1 }, ftp.relay.stdout)
        XCTAssertEqual(renditionEvents(ftp.relay)["DSC_0300.JPG"]?["duringDownload"] as? Bool, true, ftp.relay.stdout)
    }

    /// A gallery that wants every body's length (411 to a chunked one) gets the rendition once
    /// it is stored, byte for byte, without a failure, and the next photo's too.
    func testAGalleryThatWantsALengthGetsTheCompleteRendition() throws {
        let gallery = try GalleryProcess(arguments: ["--length-required"])
        let ftp = try FTPRun(config: ["--max-edge", edge], gallery: gallery)
        var files: [URL] = []
        for index in 0..<2 {
            let photo = ftp.files.appendingPathComponent("DSC_031\(index).JPG")
            try CameraJPEG.write(to: photo, .init(width: 2400, height: 1600, seed: 44 + index))
            files.append(photo)
        }
        let expected = try renditionsOfFinishedFiles(ftp.harness, files)
        for (index, photo) in files.enumerated() {
            let sent = try ftp.camera(["--rate", "800000", photo.path])
            XCTAssertTrue(sent.stdout.hasPrefix("\(photo.lastPathComponent) 226"), sent.stdout + sent.stderr)
            try ftp.waitForPhotos(index + 1)
        }
        let stored = Dictionary(uniqueKeysWithValues: try gallery.photos().map { ($0.name, $0.sha256) })
        XCTAssertEqual(stored, expected)
        let accepted = try gallery.settledUploadRequests().filter { $0.statusCode == 200 || $0.statusCode == 201 }
        XCTAssertEqual(accepted.count, 2)
        XCTAssertTrue(accepted.allSatisfy { $0.headers["content-length"] != nil }, "\(accepted.map(\.headers))")
        XCTAssertTrue(ftp.relay.stderr.contains("HTTP 411"), ftp.relay.stderr)
        XCTAssertFalse(
            ftp.relay.stderr.contains("upload during its download failed"), "a refused length is not a failure: \(ftp.relay.stderr)")
        XCTAssertFalse(ftp.relay.stderr.contains("sent as the original"), ftp.relay.stderr)
    }

    /// A progressive photo over FTP: fed as it arrives (its rows come once its last scan is in),
    /// and its rendition is the finished file's.
    func testAProgressivePhotoIsFedAsItArrivesAndGivesTheFinishedFilesRendition() throws {
        let ftp = try FTPRun(extra: ["--json"], config: ["--max-edge", edge])
        let baseline = ftp.harness.root.appendingPathComponent("baseline.jpg")
        try CameraJPEG.write(to: baseline, .init(width: 2400, height: 1600, seed: 46))
        let photo = ftp.files.appendingPathComponent("DSC_0320.JPG")
        let jpegtran = try XCTUnwrap(Subprocess.which("jpegtran"), "jpegtran (libjpeg-turbo-progs) is missing")
        let made = try Subprocess.run(jpegtran, ["-copy", "all", "-progressive", "-outfile", photo.path, baseline.path])
        XCTAssertEqual(made.status, 0, made.stderr)
        let expected = try renditionsOfFinishedFiles(ftp.harness, [photo, baseline])
        XCTAssertEqual(expected["DSC_0320.JPG"], expected["baseline.jpg"], "the same pixels, the same rendition")
        let sent = try ftp.camera(["--rate", "800000", photo.path])
        XCTAssertTrue(sent.stdout.hasPrefix("DSC_0320.JPG 226"), sent.stdout + sent.stderr)
        try ftp.waitForPhotos(1)
        XCTAssertEqual(try ftp.gallery.photos().map(\.sha256), [expected["DSC_0320.JPG"]])
        XCTAssertTrue(Subprocess.waitUntil(timeout: 10) { self.renditionEvents(ftp.relay).count == 1 }, ftp.relay.stdout)
        XCTAssertEqual(renditionEvents(ftp.relay)["DSC_0320.JPG"]?["duringDownload"] as? Bool, true, ftp.relay.stdout)
    }

    /// A hot folder's photo arrives complete: its rendition is made from the spooled file, the
    /// same code fed from disk, and is `relay rendition`'s.
    func testAHotFolderPhotoGetsTheSameRenditionFromTheSpool() throws {
        let gallery = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "", ["--max-edge", edge])
        let source = harness.root.appendingPathComponent("IMG_0400.JPG")
        try CameraJPEG.write(to: source, .init(width: 2400, height: 1600, orientation: 8, seed: 47))
        let expected = try renditionsOfFinishedFiles(harness, [source])
        let relay = try harness.startRun(["--json"])
        defer { _ = relay.stop(signal: SIGKILL) }
        try FileManager.default.copyItem(at: source, to: harness.dropFolder.appendingPathComponent(".IMG_0400.JPG.part"))
        try FileManager.default.moveItem(
            at: harness.dropFolder.appendingPathComponent(".IMG_0400.JPG.part"),
            to: harness.dropFolder.appendingPathComponent("IMG_0400.JPG"))
        XCTAssertTrue(try Subprocess.waitUntil(timeout: 60) { try gallery.photos().count == 1 || !relay.isRunning }, relay.stderr)
        XCTAssertEqual(try gallery.photos().map(\.sha256), [expected["IMG_0400.JPG"]])
        XCTAssertTrue(Subprocess.waitUntil(timeout: 10) { self.renditionEvents(relay).count == 1 }, relay.stdout)
        XCTAssertEqual(renditionEvents(relay)["IMG_0400.JPG"]?["duringDownload"] as? Bool, false)
    }

    /// An S3 bucket (SeaweedFS) needs each object's length first: the rendition, decoded while
    /// the photo downloaded, is PUT once stored, and the object is `relay rendition`'s bytes.
    func testAnS3BucketGetsTheStoredRenditionWhole() throws {
        let store = try SeaweedFSProcess()
        defer { store.stop() }
        try store.createBucket("event")
        let harness = try RelayHarness()
        harness.environment["AWS_ACCESS_KEY_ID"] = store.accessKey
        harness.environment["AWS_SECRET_ACCESS_KEY"] = store.secretKey
        let card = harness.root.appendingPathComponent("card")
        try FileManager.default.createDirectory(at: card, withIntermediateDirectories: true)
        let landscape = card.appendingPathComponent("A.JPG")
        try CameraJPEG.write(to: landscape, .init(width: 2400, height: 1600, seed: 48))
        let expected = try renditionsOfFinishedFiles(harness, [landscape])
        let added = try harness.relay(
            "config", "add", "--url", "s3://event/{name}", "--endpoint", store.endpoint, "--max-edge", edge)
        XCTAssertEqual(added.status, 0, added.stderr)
        let camera = try CameraSimProcess(profile: "generic", arguments: ["--photos", card.path, "--rate-limit", "2M"])
        defer { _ = camera.stop() }
        let relay = try harness.startCameraRun(camera.cameraURL, ["--json"])
        defer { _ = relay.stop(signal: SIGKILL) }
        XCTAssertTrue(Subprocess.waitUntil(timeout: 60) { relay.stderr.contains("connected to") }, relay.stderr)
        camera.shootByStdin()
        let delivered = Subprocess.waitUntil(timeout: 90) {
            ((try? harness.history()) ?? []).contains(where: \.success) || !relay.isRunning
        }
        XCTAssertTrue(delivered, relay.stderr)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
        let objects = try store.objects(in: "event")
        XCTAssertEqual(objects.map(\.sha256), [expected["A.JPG"]], "\(objects.map(\.key))")
        XCTAssertEqual(renditionEvents(relay).values.first?["duringDownload"] as? Bool, true, relay.stdout)
    }
}
