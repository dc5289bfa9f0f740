import Foundation
import TestSupport
import XCTest

/// relay run end to end: a real hot folder, the real relay executable, the real gallery process.
final class HotFolderDeliveryTests: XCTestCase {
    private func waitForPhotos(_ gallery: GalleryProcess, count: Int, relay: Subprocess, timeout: TimeInterval = 120) throws {
        let arrived = try Subprocess.waitUntil(timeout: timeout) { try gallery.photos().count >= count || !relay.isRunning }
        let have = try gallery.photos().count
        XCTAssertTrue(arrived, "only \(have) of \(count) photos arrived; relay stderr:\n\(relay.stderr.suffix(3000))")
        XCTAssertTrue(relay.isRunning, "relay exited early: \(relay.stderr.suffix(3000))")
    }

    /// With a settle time of a minute, only the folder watch can take a photo within seconds: a
    /// file renamed in, or closed by its writer, is taken at once; one still open for writing
    /// (an FTP upload in progress) is not taken until it is closed.
    func testRenamedOrClosedFilesAreTakenAtOnceAndAFileStillBeingWrittenIsNot() throws {
        let gallery = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "")
        let relay = try Subprocess(
            TestPaths.relayExecutable, ["run", "--folder", harness.dropFolder.path, "--settle", "60"],
            environment: harness.environment)
        defer { _ = relay.stop(signal: SIGKILL) }
        XCTAssertTrue(Subprocess.waitUntil(timeout: 20) { relay.stderr.contains("watching for new photos") }, relay.stderr)

        let writing = harness.dropFolder.appendingPathComponent("OPEN_0001.JPG")
        let content = JPEGFixture.bytes(count: 400_000, seed: 77)
        XCTAssertTrue(FileManager.default.createFile(atPath: writing.path, contents: nil))
        let handle = try FileHandle(forWritingTo: writing)
        try handle.write(contentsOf: content.prefix(150_000))

        try harness.dropPhotos(2)
        // The two photos written after it have been taken: relay has looked at the folder since.
        try waitForPhotos(gallery, count: 2, relay: relay, timeout: 20)
        XCTAssertEqual(
            try gallery.photos().map(\.name).sorted(), ["IMG_0001.JPG", "IMG_0002.JPG"],
            "the file still open for writing is not taken")

        try handle.write(contentsOf: content.dropFirst(150_000))
        try handle.close()
        try waitForPhotos(gallery, count: 3, relay: relay, timeout: 20)
        let taken = try XCTUnwrap(try gallery.photos().first { $0.name == "OPEN_0001.JPG" })
        XCTAssertEqual(taken.sha256, SHA256.hex(content), "taken whole, once closed")
    }

    func testFiftyPhotosArriveByteIdenticalEachOnceAndHistoryShowsThem() throws {
        let gallery = try GalleryProcess()
        let harness = try RelayHarness(
            sendingTo: gallery, note: "e2e", ["--header", "Authorization: Bearer ${GALLERY_TOKEN}", "--field", "event=test"])
        harness.environment["GALLERY_TOKEN"] = "s3cret-token"
        let relay = try harness.startRun()
        let photos = try harness.dropPhotos(50)
        try Data("raw".utf8).write(to: harness.dropFolder.appendingPathComponent("IMG_0001.CR3"))
        try waitForPhotos(gallery, count: 50, relay: relay)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)

        let received = try gallery.photos()
        XCTAssertEqual(received.count, 50)
        XCTAssertEqual(Set(received.map(\.name)), Set(photos.keys), "each photo arrives once, under its camera name")
        for photo in received {
            XCTAssertEqual(photo.sha256, SHA256.hex(try XCTUnwrap(photos[photo.name])), "\(photo.name) differs")
            XCTAssertEqual(photo.fields["note"], "e2e")
            XCTAssertEqual(photo.fields["event"], "test")
        }
        XCTAssertEqual(Set(received.compactMap(\.idempotencyKey)).count, 50)
        let uploads = try gallery.uploadRequests()
        XCTAssertEqual(uploads.count, 50, "one request per photo on a healthy network")
        XCTAssertTrue(uploads.allSatisfy { $0.headers["authorization"] == "Bearer s3cret-token" }, "the ${VAR} header reaches the gallery")

        let history = try harness.history()
        XCTAssertEqual(history.filter(\.success).count, 50)
        XCTAssertEqual(Set(history.map(\.fileName)), Set(photos.keys))
        XCTAssertTrue(history.allSatisfy { $0.requestSummary.contains("Authorization: <redacted>") })
        XCTAssertFalse(history.contains { $0.requestSummary.contains("s3cret") }, "no secret in history")
        let table = try harness.relay("history", "-n", "5")
        XCTAssertEqual(table.status, 0)
        XCTAssertEqual(table.stdout.split(separator: "\n").count, 6, table.stdout)
        XCTAssertTrue(table.stdout.contains("IMG_0050.JPG") || table.stdout.contains("ok"), table.stdout)
        XCTAssertTrue(relay.stderr.contains("skipped IMG_0001.CR3: not a JPEG"), relay.stderr)
        let status = try harness.status()
        XCTAssertEqual(status.queued.count + status.inFlight.count + status.failed.count, 0)
    }

    func testServerErrorsAndDroppedConnectionsAreRetriedUntilEachPhotoArrivesOnce() throws {
        // Each photo: first attempt the connection is dropped, second gets a 500, third succeeds.
        let gallery = try GalleryProcess(arguments: ["--drop-first", "1", "--fail-first", "2", "--fail-status", "500"])
        let harness = try RelayHarness(sendingTo: gallery, note: "")
        let relay = try harness.startRun()
        let photos = try harness.dropPhotos(10)
        try waitForPhotos(gallery, count: 10, relay: relay)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0)

        let received = try gallery.photos()
        XCTAssertEqual(received.count, 10)
        for photo in received { XCTAssertEqual(photo.sha256, SHA256.hex(try XCTUnwrap(photos[photo.name]))) }
        let history = try harness.history()
        XCTAssertEqual(history.filter(\.success).count, 10)
        let failures = history.filter { !$0.success }
        XCTAssertEqual(failures.filter { $0.statusCode == 500 }.count, 10, "one 500 per photo is recorded")
        // libcurl silently resends once when a kept-alive connection turns out dead, so a drop is
        // an attempt of relay's own only on a fresh connection (at least each worker's first).
        XCTAssertGreaterThanOrEqual(failures.filter { $0.statusCode == nil }.count, 1, "dropped connections are recorded")
        let dropped = try gallery.uploadRequests().filter { $0.status == "dropped" }
        XCTAssertEqual(Set(dropped.compactMap(\.idempotencyKey)).count, 10, "every photo met a dropped connection")
    }

    /// A venue network that is down: the photos wait in the spool and one attempt at a time
    /// probes the gallery, instead of every photo spending attempts (and filling the history)
    /// on the same refused connection. Once the gallery is up, every photo arrives once.
    func testWhileTheGalleryCannotBeReachedOnlyProbesAreMadeAndEveryPhotoArrivesOnceItIsUp() throws {
        let port = try XCTUnwrap(ClosedPort.make())
        let harness = try RelayHarness()
        XCTAssertEqual(try harness.relay("config", "add", "--url", "http://127.0.0.1:\(port)/upload").status, 0)
        let relay = try harness.startRun()  // retries: 0.05 s doubling to at most 0.5 s
        let photos = try harness.dropPhotos(20)
        let lost = Subprocess.waitUntil(timeout: 60) { relay.stderr.contains("the gallery cannot be reached") }
        XCTAssertTrue(lost, relay.stderr)
        // The outage lasts several probes: long enough for photos retrying each on its own to
        // have made far more attempts than the limit below.
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { ((try? harness.history()) ?? []).filter { !$0.success }.count >= 5 })
        let gallery = try GalleryProcess(arguments: ["--port", "\(port)"])
        try waitForPhotos(gallery, count: 20, relay: relay)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)

        let received = try gallery.photos()
        XCTAssertEqual(received.count, 20, "each photo arrives once")
        XCTAssertEqual(Set(received.map(\.name)), Set(photos.keys))
        XCTAssertTrue(relay.stderr.contains("the gallery is reachable again"), relay.stderr)
        // Every photo retrying on its own (at most 0.5 s apart) for 3 s would make hundreds of
        // attempts, and the history would hold only them; probes come one per backoff step.
        let failures = try harness.history().filter { !$0.success }
        XCTAssertGreaterThanOrEqual(failures.count, 2)
        XCTAssertLessThan(failures.count, 50, "\(failures.count) failed attempts while the gallery was down")
        XCTAssertTrue(
            failures.allSatisfy { $0.errorMessage?.contains("could not connect") == true },
            failures.map { $0.errorMessage ?? "-" }.joined(separator: "\n"))
    }

    func testPermanentRejectionMovesThePhotoToFailedAndDoesNotBlockTheRest() throws {
        let gallery = try GalleryProcess(arguments: ["--reject-name", "BAD", "--reject-status", "400"])
        let harness = try RelayHarness(sendingTo: gallery, note: "")
        let relay = try harness.startRun()
        try harness.dropPhotos(1, prefix: "BAD_")
        try harness.dropPhotos(5)
        try waitForPhotos(gallery, count: 5, relay: relay)
        let failedRecorded = try Subprocess.waitUntil(timeout: 60) { try harness.status().failed.count == 1 }
        XCTAssertTrue(failedRecorded, relay.stderr)
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0)

        let status = try harness.status()
        XCTAssertEqual(status.failed.map(\.uploadName), ["BAD_0001.JPG"])
        XCTAssertEqual(status.failed.first?.lastStatusCode, 400)
        XCTAssertEqual(status.failed.first?.attempts, 1, "a 400 is not retried")
        let failedFolder = harness.home.appendingPathComponent("spool/failed")
        let failedFiles = try FileManager.default.contentsOfDirectory(atPath: failedFolder.path)
        XCTAssertEqual(failedFiles.filter { $0.hasSuffix(".jpg") }.count, 1)
        let history = try harness.history()
        XCTAssertEqual(history.first { $0.fileName == "BAD_0001.JPG" }?.statusCode, 400)
        XCTAssertEqual(try gallery.photos().count, 5)

        // Once the gallery accepts it, `relay retry` and another run deliver it.
        try gallery.setFaults(GalleryFaults(rejectName: ""))
        let retry = try harness.relay("retry", "--all")
        XCTAssertEqual(retry.status, 0, retry.stderr)
        let again = try harness.startRun()
        try waitForPhotos(gallery, count: 6, relay: again)
        XCTAssertEqual(again.stop(signal: SIGTERM, timeout: 30), 0)
    }

    func testKillNineMidRunThenRestartDeliversEveryPhotoExactlyOnce() throws {
        let gallery = try GalleryProcess(arguments: ["--delay", "0.1"])
        let harness = try RelayHarness(sendingTo: gallery, note: "")
        let photos = try harness.dropPhotos(40)
        let first = try harness.startRun()
        let someArrived = try Subprocess.waitUntil(timeout: 120) { try gallery.photos().count >= 8 }
        XCTAssertTrue(someArrived, first.stderr)
        first.stop(signal: SIGKILL, timeout: 10)
        let before = try gallery.photos().count
        XCTAssertLessThan(before, 40, "the kill must land mid-run for this test to mean anything")

        let second = try harness.startRun()
        try waitForPhotos(gallery, count: 40, relay: second)
        XCTAssertEqual(second.stop(signal: SIGTERM, timeout: 30), 0)
        let received = try gallery.photos()
        XCTAssertEqual(received.count, 40, "no photo twice, none lost")
        // The gallery answers 200 (not 201) to a repeat. Only a photo whose answer the kill cut
        // off may be sent again: at most one per worker.
        let repeats = try gallery.uploadRequests().filter { $0.status == "200" }
        XCTAssertLessThanOrEqual(repeats.count, 2, "delivered photos were sent again: \(repeats.map(\.idempotencyKey))")
        XCTAssertEqual(Set(received.map(\.name)), Set(photos.keys))
        for photo in received { XCTAssertEqual(photo.sha256, SHA256.hex(try XCTUnwrap(photos[photo.name]))) }
        let status = try harness.status()
        XCTAssertEqual(status.queued.count + status.inFlight.count, 0)
    }

    func testHundredTwentyUploadsLeaveTheNewestHundredInHistoryAcrossRestarts() throws {
        let gallery = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "")
        for batch in 0..<2 {
            let relay = try harness.startRun(["--workers", "4"])
            try harness.dropPhotos(60, startingAt: batch * 60 + 1)
            try waitForPhotos(gallery, count: (batch + 1) * 60, relay: relay)
            XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0)
        }
        let history = try harness.history()
        XCTAssertEqual(history.count, 100)
        let timestamps = history.map(\.timestamp)
        XCTAssertEqual(timestamps, timestamps.sorted(by: >), "newest first")
        // Within a run photos may finish in any order (4 workers, files taken as they complete);
        // the second run's all come after the first run's, so the 20 that fell off are the first run's.
        let names = Set(history.map(\.fileName))
        XCTAssertEqual(names.count, 100)
        XCTAssertTrue((61...120).allSatisfy { names.contains(String(format: "IMG_%04d.JPG", $0)) }, "the newest run is all there")
        XCTAssertEqual((1...60).filter { names.contains(String(format: "IMG_%04d.JPG", $0)) }.count, 40, "the oldest 20 fell off")
    }

    func testPhotosDroppedWhileRelayWasStoppedAreTakenOnStartAndNotTwice() throws {
        let gallery = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "")
        try harness.dropPhotos(5)
        var relay = try harness.startRun()
        try waitForPhotos(gallery, count: 5, relay: relay)
        XCTAssertEqual(relay.stop(signal: SIGINT, timeout: 30), 0)
        try harness.dropPhotos(3, startingAt: 6)
        relay = try harness.startRun()
        try waitForPhotos(gallery, count: 8, relay: relay)
        // Exited with an empty spool, relay can send nothing more: the count below is final.
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0)
        let status = try harness.status()
        XCTAssertEqual(status.queued.count + status.inFlight.count, 0)
        XCTAssertEqual(try gallery.uploadRequests().count, 8, "the first five were not sent again")
    }
}
