import Foundation
import TestSupport
import XCTest

/// Renditions end to end: camera-like photos on the simulated camera's card, `relay run` with a
/// `--max-edge` config, the local gallery; what arrives is read back with exiftool and Pillow.
final class RenditionDeliveryTests: XCTestCase {
    private func isRed(_ rgb: [Int]) -> Bool { rgb.count == 3 && rgb[0] > 180 && rgb[1] < 90 && rgb[2] < 90 }

    func testRenditionsArriveUprightSizedWithMetadataAndOriginalsWhenTheyMust() throws {
        let gallery = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "", ["--max-edge", "1024", "--strip-gps"])
        let card = harness.root.appendingPathComponent("card")
        try FileManager.default.createDirectory(at: card, withIntermediateDirectories: true)
        // A portrait shot (stored sideways, orientation 6) with GPS and XMP; a photo smaller than
        // the rendition; a photo whose pixel data is damaged.
        try CameraJPEG.write(
            to: card.appendingPathComponent("PORT.JPG"), .init(width: 3000, height: 2000, orientation: 6, gps: true, xmp: true))
        let small = try CameraJPEG.write(to: card.appendingPathComponent("SMALL.JPG"), .init(width: 800, height: 600, seed: 2))
        let damaged = CameraJPEG.damaged(
            try CameraJPEG.write(
                to: harness.root.appendingPathComponent("whole.jpg"),
                .init(width: 1600, height: 1200, seed: 3)))
        try damaged.write(to: card.appendingPathComponent("DAMAGED.JPG"))

        let camera = try CameraSimProcess(profile: "canon-eos", arguments: ["--photos", card.path])
        let relay = try harness.startCameraRun(camera.cameraURL, ["--include-existing"])
        let arrived = try Subprocess.waitUntil(timeout: 90) { try gallery.photos().count >= 3 || !relay.isRunning }
        XCTAssertTrue(arrived, "relay:\n\(relay.stderr.suffix(3000))")
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
        let photos = Dictionary(uniqueKeysWithValues: try gallery.photos().map { ($0.name, $0) })
        XCTAssertEqual(Set(photos.keys), ["PORT.JPG", "SMALL.JPG", "DAMAGED.JPG"])

        // The portrait: 1024 on its long edge, turned upright (the red corner the camera stored
        // top-left shows top-right), orientation 1, GPS gone, the rest of the metadata kept.
        let portrait = gallery.photosDirectory.appendingPathComponent("PORT.JPG")
        let pixels = try CameraJPEG.probe(portrait)
        XCTAssertEqual(pixels.width, 683)
        XCTAssertEqual(pixels.height, 1024)
        XCTAssertTrue(isRed(pixels.topRight) && !isRed(pixels.topLeft), "upright: \(pixels)")
        let tags = try CameraJPEG.exif(portrait)
        XCTAssertEqual(tags["EXIF:Orientation"] as? Int, 1)
        XCTAssertEqual(tags["EXIF:Make"] as? String, "Canon")
        XCTAssertEqual(tags["EXIF:DateTimeOriginal"] as? String, "2026:11:23 12:00:00")
        XCTAssertEqual(tags["EXIF:ExifImageWidth"] as? Int, 683)
        XCTAssertNotNil(tags["ICC_Profile:ProfileDescription"], "the colour profile is kept")
        XCTAssertEqual(tags["XMP:Creator"] as? String, "relay test photographer")
        XCTAssertTrue(tags.keys.filter { $0.hasPrefix("EXIF:GPS") }.isEmpty, "GPS removed: \(tags.keys.sorted())")
        XCTAssertTrue(
            photos["PORT.JPG"]?.idempotencyKey?.hasSuffix("-1024q85-nogps") == true,
            "the rendition has its own key: \(String(describing: photos["PORT.JPG"]?.idempotencyKey))")

        // Smaller than the rendition and without GPS: sent as it is, byte for byte.
        XCTAssertEqual(photos["SMALL.JPG"]?.sha256, SHA256.hex(small))
        // Damaged: sent as the original, and the history says why.
        XCTAssertEqual(photos["DAMAGED.JPG"]?.sha256, SHA256.hex(damaged))
        let history = try harness.history()
        let damagedRecord = try XCTUnwrap(history.first { $0.fileName == "DAMAGED.JPG" && $0.success })
        XCTAssertTrue(damagedRecord.note?.contains("sent as the original") == true, "\(String(describing: damagedRecord.note))")
        let portraitRecord = try XCTUnwrap(history.first { $0.fileName == "PORT.JPG" && $0.success })
        XCTAssertEqual(portraitRecord.renditionBytes, photos["PORT.JPG"]?.bytes)
        XCTAssertTrue(relay.stderr.contains("DAMAGED.JPG is sent as the original"), relay.stderr)
        XCTAssertTrue(try harness.relay("history").stdout.contains("→"), "relay history shows both sizes")
    }

    func testSIGKILLWhileRenditionsAreMadeLosesNothingAndSendsNoHalfRendition() throws {
        let gallery = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "", ["--max-edge", "1024"])
        let card = harness.root.appendingPathComponent("card")
        try FileManager.default.createDirectory(at: card, withIntermediateDirectories: true)
        let names = (1...6).map { String(format: "KILL_%04d.JPG", $0) }
        for (index, name) in names.enumerated() {
            try CameraJPEG.write(to: card.appendingPathComponent(name), .init(width: 3000, height: 2000, seed: 10 + index))
        }
        let camera = try CameraSimProcess(profile: "canon-eos", arguments: ["--photos", card.path])
        let first = try harness.startCameraRun(camera.cameraURL, ["--include-existing"])
        // Killed as soon as the first rendition is made: the others are being made or waiting.
        let rendering = Subprocess.waitUntil(timeout: 60) { first.stderr.contains("rendition KILL_") || !first.isRunning }
        XCTAssertTrue(rendering, first.stderr)
        XCTAssertEqual(first.stop(signal: SIGKILL, timeout: 10), SIGKILL, "killed, not ended on its own")
        let before = try gallery.photos().count
        XCTAssertLessThan(before, names.count, "the kill came while renditions were still to be made")

        let second = try harness.startCameraRun(camera.cameraURL, ["--include-existing"])
        let arrived = try Subprocess.waitUntil(timeout: 90) {
            try Set(gallery.photos().map(\.name)).count == names.count || !second.isRunning
        }
        XCTAssertTrue(arrived, "second run:\n\(second.stderr.suffix(3000))")
        XCTAssertEqual(second.stop(signal: SIGTERM, timeout: 30), 0, second.stderr)
        let photos = try gallery.photos()
        XCTAssertEqual(Set(photos.map(\.name)), Set(names))
        XCTAssertEqual(photos.count, names.count, "each photo once: \(photos.map(\.name).sorted())")
        for photo in photos {
            let pixels = try CameraJPEG.probe(gallery.photosDirectory.appendingPathComponent(photo.name))
            XCTAssertEqual(pixels.width, 1024, photo.name)
            XCTAssertEqual(pixels.height, 683, photo.name)
        }
        let spool = harness.home.appendingPathComponent("spool")
        let left = try FileManager.default.contentsOfDirectory(atPath: spool.path).filter { $0.hasSuffix(".jpg") }
        XCTAssertEqual(left, [], "nothing is left behind in the spool")
    }
}

/// Issue 49: a rendition belongs to the destination that asks for it, whatever its place in the
/// run: an archive named after the gallery gets 1024 px copies while the gallery gets the
/// camera's originals; two sizes in one run are refused at start, naming both.
final class RenditionPerDestinationTests: XCTestCase {
    func testAnArchiveNamedSecondGetsItsRenditionAndTheGalleryTheOriginal() throws {
        let gallery = try GalleryProcess()
        let archive = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "gallery")
        XCTAssertEqual(
            try harness.relay("config", "add", "--url", archive.uploadURL, "--note", "archive", "--max-edge", "1024").status, 0)
        var originals: [String: Data] = [:]
        for index in 1...2 {
            let name = String(format: "IMG_%04d.JPG", index)
            let staged = harness.root.appendingPathComponent(name)
            originals[name] = try CameraJPEG.write(to: staged, .init(width: 2400, height: 1600, seed: 40 + index))
            try FileManager.default.moveItem(at: staged, to: harness.dropFolder.appendingPathComponent(name))
        }
        let relay = try harness.startRun(["--config", "gallery", "--config", "archive"])
        let arrived = try Subprocess.waitUntil(timeout: 90) {
            try gallery.photos().count == 2 && archive.photos().count == 2 || !relay.isRunning
        }
        XCTAssertTrue(arrived, relay.stderr)
        XCTAssertEqual(relay.stop(), 0, relay.stderr)
        for photo in try gallery.photos() {
            XCTAssertEqual(photo.sha256, SHA256.hex(try XCTUnwrap(originals[photo.name])), "the gallery gets the camera's file")
        }
        for photo in try archive.photos() {
            let pixels = try CameraJPEG.probe(archive.photosDirectory.appendingPathComponent(photo.name))
            XCTAssertEqual([pixels.width, pixels.height], [1024, 683], "the archive gets its rendition: \(photo.name)")
        }
    }

    /// A gallery at 2048 px and an archive at 1024 px in one run, from a camera: the gallery's
    /// copy is decoded as each photo downloads, the archive's made from the spool; each gets its
    /// own size under its own key, and no rendition file is left once both have every photo.
    func testAGalleryAndAnArchiveEachGetTheirOwnSizeFromTheCamera() throws {
        let gallery = try GalleryProcess()
        let archive = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "gallery", ["--max-edge", "2048"])
        XCTAssertEqual(
            try harness.relay("config", "add", "--url", archive.uploadURL, "--note", "archive", "--max-edge", "1024").status, 0)
        let card = harness.root.appendingPathComponent("card")
        try FileManager.default.createDirectory(at: card, withIntermediateDirectories: true)
        for index in 1...2 {
            try CameraJPEG.write(to: card.appendingPathComponent("IMG_\(index).JPG"), .init(width: 2100, height: 1400, seed: 60 + index))
        }
        let camera = try CameraSimProcess(profile: "generic", arguments: ["--photos", card.path, "--rate-limit", "4M"])
        defer { _ = camera.stop() }
        let relay = try harness.startCameraRun(camera.cameraURL, ["--config", "archive", "--config", "gallery"])
        defer { _ = relay.stop(signal: SIGKILL) }
        XCTAssertTrue(Subprocess.waitUntil(timeout: 60) { relay.stderr.contains("connected to") }, relay.stderr)
        for shot in 1...2 {
            camera.shootByStdin()
            let arrived = try Subprocess.waitUntil(timeout: 90) {
                try gallery.photos().count >= shot && archive.photos().count >= shot || !relay.isRunning
            }
            XCTAssertTrue(arrived, "shot \(shot): \(relay.stderr.suffix(3000))")
        }
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
        for (destination, size) in [(gallery, [2048, 1365]), (archive, [1024, 683])] {
            let photos = try destination.photos()
            XCTAssertEqual(photos.count, 2)
            for photo in photos {
                let pixels = try CameraJPEG.probe(destination.photosDirectory.appendingPathComponent(photo.name))
                XCTAssertEqual([pixels.width, pixels.height], size, photo.name)
            }
        }
        let galleryKeys = Set(try gallery.photos().compactMap(\.idempotencyKey))
        let archiveKeys = Set(try archive.photos().compactMap(\.idempotencyKey))
        XCTAssertEqual(galleryKeys.count, 2)
        XCTAssertTrue(galleryKeys.isDisjoint(with: archiveKeys), "each size has its own key: \(galleryKeys) \(archiveKeys)")
        XCTAssertTrue(relay.stderr.contains("decoded as it downloaded"), "the gallery's size is streamed: \(relay.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: harness.home.appendingPathComponent("spool").path)
        XCTAssertFalse(left.contains { $0.hasSuffix(".rendition.jpg") }, "\(left)")
    }
}
