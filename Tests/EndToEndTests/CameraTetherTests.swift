import Foundation
import TestSupport
import XCTest

/// `relay run --camera` end to end: the real relay executable, the camera simulator over real
/// sockets, the real gallery process.
final class CameraTetherTests: XCTestCase {
    /// The JPEG name of photo `number` on a profile's card.
    func jpegName(_ profile: String, _ number: Int) -> String {
        switch profile {
        case "canon-eos": return String(format: "IMG_%04d.JPG", number)
        case "nikon": return String(format: "DSC_%04d.JPG", number)
        default: return String(format: "DSC0%04d.JPG", number)
        }
    }

    // MARK: - Each profile: 30 shots with RAW companions

    func testCanonThirtyShotsWithRAWArriveOnceAndRAWIsSkipped() throws {
        try checkThirtyShotsWithRAW(profile: "canon-eos", rawExtension: "CR3")
    }

    func testNikonThirtyShotsWithRAWArriveOnceAndRAWIsSkipped() throws {
        try checkThirtyShotsWithRAW(profile: "nikon", rawExtension: "NEF")
    }

    func testGenericThirtyShotsWithRAWArriveOnceAndRAWIsSkipped() throws {
        try checkThirtyShotsWithRAW(profile: "generic", rawExtension: "ARW")
    }

    private func checkThirtyShotsWithRAW(profile: String, rawExtension: String) throws {
        let camera = try CameraRun(
            profile: profile,
            ["--initial-photos", "2", "--raw", "--photo-size", "120k", "--raw-size", "80k", "--property-every", "500ms"])
        let relay = try camera.start()
        camera.waitForLog(relay, "were already on the card")
        for _ in 0..<3 {
            camera.sim.shootByStdin(10)
            Thread.sleep(forTimeInterval: 0.3)
        }
        try camera.waitForPhotos(30, relay: relay)
        try camera.stopWithNothingLeft(relay)

        XCTAssertEqual(
            try camera.gallery.photos().map(\.name).sorted(), (3...32).map { jpegName(profile, $0) },
            "the 30 new JPEGs, each once; not the 2 that were on the card before")
        try camera.assertByteIdentical()
        XCTAssertEqual(try camera.gallery.uploadRequests().count, 30, "nothing sent twice")
        let skippedRAW = relay.stderr.split(separator: "\n").filter {
            $0.contains("skipped ") && $0.contains(".\(rawExtension): RAW, kept on the card")
        }
        XCTAssertEqual(skippedRAW.count, 30, "every RAW companion is reported as skipped once:\n\(relay.stderr.suffix(3000))")
        XCTAssertEqual(try camera.harness.history().filter(\.success).count, 30)
    }

    /// Two photos of `size` shot on a Canon link of `rate` bytes/s, run through relay into the
    /// gallery started with `galleryArguments`, and relay stopped; returns what a test checks.
    private func shootTwoOnSlowLink(size: String, rate: String, galleryArguments: [String] = []) throws
        -> (gallery: GalleryProcess, harness: RelayHarness, relay: Subprocess)
    {
        let camera = try CameraRun(
            profile: "canon-eos", ["--initial-photos", "0", "--photo-size", size, "--rate-limit", rate],
            galleryArguments: galleryArguments)
        let relay = try camera.startConnected()
        camera.sim.shootByStdin(2)
        try camera.waitForPhotos(2, relay: relay)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
        XCTAssertEqual(try camera.gallery.photos().map(\.name).sorted(), ["IMG_0001.JPG", "IMG_0002.JPG"])
        try camera.assertByteIdentical()
        return (camera.gallery, camera.harness, relay)
    }

    /// On a slow camera link (3 MB at 1 MB/s) an idle worker uploads each photo while it
    /// downloads; the gallery gets each photo once and exactly as the camera holds it.
    func testPhotosAreUploadedWhileTheyDownload() throws {
        let (gallery, harness, relay) = try shootTwoOnSlowLink(size: "3M", rate: "1000000")
        XCTAssertEqual(try gallery.settledUploadRequests().map(\.status), ["201", "201"], "each photo sent once")
        let duringDownload = relay.stderr.split(separator: "\n").filter { $0.contains("(sent while downloading)") }
        XCTAssertEqual(duringDownload.count, 2, relay.stderr)
        XCTAssertEqual(try harness.history().filter(\.success).count, 2)
    }

    /// The gallery answers 503 to the first attempt of each photo, an upload made during the
    /// download: the photo is spooled by then, and the retry sends the spooled file, once.
    func testAnUploadDuringTheDownloadThatFailsIsRetriedFromTheSpool() throws {
        let (gallery, harness, _) = try shootTwoOnSlowLink(
            size: "2M", rate: "2000000", galleryArguments: ["--fail-first", "1", "--fail-status", "503"])
        XCTAssertEqual(try gallery.settledUploadRequests().map(\.status).sorted(), ["201", "201", "503", "503"])
        let history = try harness.history()
        XCTAssertEqual(history.filter(\.success).count, 2)
        XCTAssertEqual(history.filter { !$0.success }.map(\.statusCode), [503, 503])
        XCTAssertEqual(Set(history.filter(\.success).map(\.attempt)), [2], "the spooled file went on the second attempt")
    }

    // MARK: - Bad links

    func testRandomPacketSplitsASlowLinkAPropertyFloodAndBusyAfterConnectStillDeliverEveryPhoto() throws {
        let camera = try CameraRun(
            profile: "canon-eos",
            [
                "--initial-photos", "0", "--photo-size", "150k", "--random-split", "--rate-limit", "2M",
                "--busy-after-connect", "2s", "--property-flood", "25", "--seed", "11", "--verbose",
            ])
        let relay = try camera.start()
        camera.waitForLog(relay, "answered DeviceBusy")
        camera.sim.shootByStdin(8)
        try camera.waitForPhotos(8, relay: relay)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
        XCTAssertEqual(try camera.gallery.photos().map(\.name).sorted(), (1...8).map { jpegName("canon-eos", $0) })
        try camera.assertByteIdentical()
        XCTAssertTrue(camera.sim.log.contains("→ DeviceBusy"), "the camera did answer busy")
    }

    func testGenericRandomSplitsAndBusyAnswersStillDeliverEveryPhoto() throws {
        let camera = try CameraRun(
            profile: "generic",
            ["--initial-photos", "0", "--photo-size", "150k", "--random-split", "--busy-rate", "0.3", "--seed", "5"])
        let relay = try camera.startConnected()
        camera.sim.shootByStdin(8)
        try camera.waitForPhotos(8, relay: relay)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
        XCTAssertEqual(try camera.gallery.photos().count, 8)
        try camera.assertByteIdentical()
    }

    /// The link drops every 1.5 MB while 4 MB photos are downloaded in 256 kB chunks. The
    /// simulator logs every GetPartialObject with its offset: after each drop the next request for
    /// the same photo continues at a non-zero offset, and a photo's offsets never go back, which
    /// is what a resumed (not restarted) download looks like.
    func testDroppedConnectionsInTheMiddleOfLargeFilesResumeAndDeliverEachPhotoWholeAndOnce() throws {
        let camera = try CameraRun(
            profile: "generic", ["--initial-photos", "0", "--photo-size", "4M", "--drop-every", "1500k", "--verbose"])
        let relay = try camera.startConnected(["--chunk-size", "256K"])
        camera.sim.shootByStdin(2)
        try camera.waitForPhotos(2, relay: relay)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)

        XCTAssertEqual(try camera.gallery.photos().map(\.name).sorted(), ["DSC00001.JPG", "DSC00002.JPG"])
        try camera.assertByteIdentical()
        // An upload started during a download that a drop then cut is abandoned with its body
        // incomplete: the gallery answers it with an error or not at all, and stores nothing.
        let requests = try camera.gallery.uploadRequests()
        XCTAssertEqual(requests.filter { ($0.statusCode ?? 0) / 100 == 2 }.count, 2, "each photo stored once")
        for request in requests where (request.statusCode ?? 0) / 100 != 2 {
            XCTAssert(request.status == "dropped" || request.status == "400", "an abandoned upload: \(request.status)")
        }

        let log = camera.sim.log
        let drops = log.components(separatedBy: "dropped the connection after another").count - 1
        XCTAssertGreaterThanOrEqual(drops, 4, "8 MB through a link that drops every 1.5 MB")
        XCTAssertTrue(relay.stderr.contains("resuming DSC00001.JPG at"), relay.stderr)
        var offsetsByHandle: [String: [Int]] = [:]
        var resumedAfterDrop = 0
        var droppedSinceLastRequest = false
        for line in log.split(separator: "\n") {
            if line.contains("dropped the connection") { droppedSinceLastRequest = true }
            guard line.contains("GetPartialObject (0x101B)("), let open = line.range(of: "GetPartialObject (0x101B)("),
                let close = line[open.upperBound...].firstIndex(of: ")")
            else { continue }
            let parameters = line[open.upperBound..<close].split(separator: ",").compactMap { Int($0, radix: 16) }
            guard parameters.count == 3 else { continue }
            let handle = String(parameters[0], radix: 16)
            if droppedSinceLastRequest, let last = offsetsByHandle[handle]?.last, parameters[1] >= last, parameters[1] > 0 {
                resumedAfterDrop += 1
            }
            droppedSinceLastRequest = false
            offsetsByHandle[handle, default: []].append(parameters[1])
        }
        XCTAssertEqual(offsetsByHandle.count, 2)
        for (handle, offsets) in offsetsByHandle {
            XCTAssertEqual(offsets, offsets.sorted(), "photo \(handle) was downloaded from the start again: \(offsets)")
        }
        XCTAssertGreaterThanOrEqual(resumedAfterDrop, 3, "downloads continued where the drop cut them:\n\(log.suffix(3000))")
    }

    // MARK: - Never twice, never lost

    func testRestartTakesNothingTwiceAndTakesWhatWasShotWhileRelayWasStopped() throws {
        let camera = try CameraRun(profile: "nikon", ["--initial-photos", "1"])
        let sim = camera.sim
        var relay = try camera.start()
        camera.waitForLog(relay, "were already on the card")
        sim.shootByStdin(3)
        try camera.waitForPhotos(3, relay: relay)
        XCTAssertEqual(relay.stop(signal: SIGINT, timeout: 30), 0, relay.stderr)

        let shotsBefore = sim.log.components(separatedBy: "(stdin)").count
        sim.shootByStdin(4)
        // The four are on the card before relay starts again.
        XCTAssertTrue(Subprocess.waitUntil(timeout: 20) { sim.log.components(separatedBy: "(stdin)").count >= shotsBefore + 4 }, sim.log)
        relay = try camera.start()
        try camera.waitForPhotos(7, relay: relay)
        try camera.stopWithNothingLeft(relay)

        XCTAssertEqual(
            try camera.gallery.photos().map(\.name).sorted(), (2...8).map { jpegName("nikon", $0) },
            "the card's first photo stays there; everything shot later arrives, also while relay was away")
        try camera.assertByteIdentical()
        XCTAssertEqual(try camera.gallery.uploadRequests().count, 7, "no photo was sent twice")
        XCTAssertEqual(
            relay.stderr.components(separatedBy: "spooled ").count - 1, 4,
            "the second run downloads only the four new photos:\n\(relay.stderr)")
    }

    /// The quick form of the fault suite's crash case (scripts/chaos.sh crash): relay killed with
    /// SIGKILL in the middle of a shooting run, three times, and started again each time.
    func testSIGKILLDuringARunLosesNothingAndSendsNothingTwice() throws {
        let camera = try CameraRun(profile: "canon-eos", ["--initial-photos", "0", "--photo-size", "1M", "--rate-limit", "8M"])
        var relay = try camera.startConnected()
        for _ in 0..<3 {
            camera.sim.shootByStdin(4)
            Thread.sleep(forTimeInterval: 0.3)
            _ = relay.stop(signal: SIGKILL, timeout: 10)
            relay = try camera.start()
        }
        try camera.waitForPhotos(12, relay: relay)
        try camera.stopWithNothingLeft(relay)
        let photos = try camera.gallery.photos()
        XCTAssertEqual(photos.map(\.name).sorted(), (1...12).map { jpegName("canon-eos", $0) })
        XCTAssertEqual(Set(photos.map(\.sha256)).count, 12)
        XCTAssertEqual(Set(photos.compactMap(\.idempotencyKey)).count, 12)
        try camera.assertByteIdentical()
    }

    func testIncludeExistingTakesWhatWasOnTheCard() throws {
        let camera = try CameraRun(profile: "generic", ["--initial-photos", "3"])
        let relay = try camera.start(["--include-existing"])
        try camera.waitForPhotos(3, relay: relay)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
        XCTAssertEqual(try camera.gallery.photos().map(\.name).sorted(), (1...3).map { jpegName("generic", $0) })
    }

    func testCanonShotsKeptInCameraMemoryAreTakenAndReleased() throws {
        let camera = try CameraRun(profile: "canon-eos", ["--initial-photos", "0", "--capture-to", "memory", "--verbose"])
        let relay = try camera.startConnected()
        camera.sim.shootByStdin(2)
        try camera.waitForPhotos(2, relay: relay)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
        try camera.assertByteIdentical()
        XCTAssertEqual(
            camera.sim.log.components(separatedBy: "TransferComplete (0x9117)").count - 1, 2,
            "each capture is released from camera memory after it is spooled")
    }

    func testALostEventIsCaughtByTheListing() throws {
        let camera = try CameraRun(profile: "canon-eos", ["--initial-photos", "0", "--lose-events", "1"])
        let relay = try camera.startConnected(["--list-every", "1s"])
        camera.sim.shootByStdin(3)
        try camera.waitForPhotos(3, relay: relay, timeout: 60)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
        XCTAssertEqual(try camera.gallery.photos().count, 3)
    }

    func testAFullSpoolLeavesPhotosOnTheCardUntilThereIsRoom() throws {
        let camera = try CameraRun(profile: "nikon", ["--initial-photos", "0"], galleryArguments: ["--delay", "0.4"])
        let relay = try camera.startConnected(["--spool-max-photos", "1", "--workers", "1"])
        camera.sim.shootByStdin(5)
        try camera.waitForPhotos(5, relay: relay)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
        XCTAssertTrue(relay.stderr.contains("spool full"), relay.stderr)
        XCTAssertEqual(try camera.gallery.uploadRequests().count, 5)
    }
}
