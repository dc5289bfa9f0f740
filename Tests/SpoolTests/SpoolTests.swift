import Foundation
import RelayCore
import Spool
import TestSupport
import XCTest

final class SpoolTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("spool-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func identity(_ name: String, bytes: Int = 100) -> PhotoIdentity {
        PhotoIdentity(source: "test", fileName: name, bytes: Int64(bytes), capturedAt: Date(), uniqueKey: name)
    }

    @discardableResult
    private func add(_ spool: Spool, _ name: String, bytes: Int = 100) throws -> SpoolEntry {
        try spool.ingest(identity(name, bytes: bytes)) { fd in
            try AtomicFile.writeAll(fd, Data(repeating: 0xAB, count: bytes))
        }
    }

    func testFIFOClaimAndDelivery() throws {
        let spool = try Spool.gallery(directory: folder)
        let a = try add(spool, "A.JPG")
        let b = try add(spool, "B.JPG")
        XCTAssertLessThan(a.sequence, b.sequence)
        let first = try XCTUnwrap(spool.claimNext())
        XCTAssertEqual(first.id, a.id)
        XCTAssertEqual(first.attempts, 1)
        XCTAssertEqual(try Data(contentsOf: spool.photoURL(for: first)).count, 100)
        try spool.markDelivered(first)
        XCTAssertFalse(FileManager.default.fileExists(atPath: spool.photoURL(for: first).path))
        XCTAssertEqual(spool.counts().queued, 1)
    }

    func testObserversHearOfChangesButNotOfAnswersThatChangeNothing() throws {
        let spool = try Spool.gallery(directory: folder)
        let heard = LockedBox(0)
        spool.onChange { heard.withLockedValue { $0 += 1 } }
        XCTAssertNil(try spool.tick())
        XCTAssertEqual(heard.current, 0, "a look that finds nothing to do is no change: an observer that looks again would spin")
        let photo = try add(spool, "A.JPG")
        XCTAssertGreaterThan(heard.current, 0, "a photo in is a change")
        let before = heard.current
        try spool.markDelivered(try XCTUnwrap(spool.claimNext()))
        XCTAssertGreaterThan(heard.current, before, "and so is its delivery")
        XCTAssertNil(spool.entry(photo.id))
    }

    func testAPhotoFlushedInTheBackgroundIsCommittedWhole() throws {
        let spool = try Spool.gallery(directory: folder)
        let incoming = try spool.beginIngest(identity("A.JPG", bytes: 3 << 20))
        let bytes = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try incoming.append(bytes)
        XCTAssertFalse(incoming.isFlushed, "no flush was started")
        incoming.flushInBackground()
        let deadline = Date().addingTimeInterval(30)
        while !incoming.isFlushed && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertTrue(incoming.isFlushed, "the background flush ends by itself")
        let entry = try spool.commit(incoming)
        XCTAssertEqual(entry.bytes, Int64(bytes.count))
        XCTAssertEqual(try Data(contentsOf: spool.photoURL(for: entry)), Data(bytes))
    }

    func testSameSourcePhotoIsNotQueuedTwice() throws {
        let spool = try Spool.gallery(directory: folder)
        let first = try add(spool, "A.JPG")
        let second = try add(spool, "A.JPG")
        XCTAssertEqual(first.id, second.id)
        XCTAssertEqual(spool.counts().queued, 1)
    }

    func testClashingNamesAreMadeUniqueAndSafe() throws {
        let spool = try Spool.gallery(directory: folder)
        let a = try spool.ingest(PhotoIdentity(source: "s", fileName: "../IMG 1.JPG", bytes: 1, capturedAt: Date(), uniqueKey: "1")) { _ in
        }
        let b = try spool.ingest(PhotoIdentity(source: "s", fileName: "IMG 1.JPG", bytes: 1, capturedAt: Date(), uniqueKey: "2")) { _ in }
        XCTAssertEqual(a.uploadName, "IMG_1.JPG")
        XCTAssertEqual(b.uploadName, "IMG_1-\(b.sequence).JPG")
    }

    func testRestartResumesQueueAndInFlightButNotDelivered() throws {
        var ids: [String] = []
        do {
            let spool = try Spool.gallery(directory: folder)
            for name in ["A", "B", "C"] { ids.append(try add(spool, name + ".JPG").id) }
            let claimed = try XCTUnwrap(spool.claimNext())
            try spool.markDelivered(claimed)
            _ = spool.claimNext()
        }
        let reopened = try Spool.gallery(directory: folder)
        XCTAssertEqual(reopened.snapshot().queued.map(\.id), [ids[1], ids[2]])
        XCTAssertEqual(reopened.snapshot().queued.first?.attempts, 1, "the interrupted attempt is counted")
        let next = try add(reopened, "D.JPG")
        XCTAssertGreaterThan(next.sequence, 3, "sequence numbers continue after a restart")
    }

    func testSequenceNumbersDoNotRepeatOnceEveryPhotoIsDelivered() throws {
        var last = 0
        do {
            let spool = try Spool.gallery(directory: folder)
            // One photo at a time, then a batch: each delivery of the highest number must
            // leave it in `.sequence`, since no other sidecar carries it.
            for name in ["A.JPG", "B.JPG"] {
                try add(spool, name)
                let claimed = try XCTUnwrap(spool.claimNext())
                try spool.markDelivered(claimed)
            }
            for name in ["C.JPG", "D.JPG", "E.JPG"] { try add(spool, name) }
            for _ in 0..<3 {
                let claimed = try XCTUnwrap(spool.claimNext())
                last = max(last, claimed.sequence)
                try spool.markDelivered(claimed)
            }
            XCTAssertEqual(spool.counts().queued, 0)
        }
        // No sidecar is left to carry the numbers: `.sequence` must.
        let reopened = try Spool.gallery(directory: folder)
        XCTAssertGreaterThan(try add(reopened, "C.JPG").sequence, last)
    }

    func testADeliveredSidecarStaysWhileItsNumberCannotBeRecorded() throws {
        let sequenceFile = folder.appendingPathComponent(".sequence")
        let delivered: SpoolEntry
        do {
            let spool = try Spool.gallery(directory: folder)
            delivered = try add(spool, "A.JPG")
            // A folder where `.sequence` should be: its write fails, as on a full disk.
            try FileManager.default.createDirectory(at: sequenceFile, withIntermediateDirectories: false)
            try spool.markDelivered(try XCTUnwrap(spool.claimNext()))
            XCTAssertTrue(
                FileManager.default.fileExists(atPath: folder.appendingPathComponent("\(delivered.id).json").path),
                "the sidecar is the only record of its number")
        }
        try FileManager.default.removeItem(at: sequenceFile)
        _ = try Spool.gallery(directory: folder)
        let reopened = try Spool.gallery(directory: folder)
        XCTAssertEqual(reopened.counts().queued, 0, "the delivered photo is not sent again")
        XCTAssertGreaterThan(try add(reopened, "B.JPG").sequence, delivered.sequence)
    }

    func testSequenceOfASidecarDroppedAtStartIsNotReused() throws {
        let dropped: SpoolEntry
        do {
            let spool = try Spool.gallery(directory: folder)
            dropped = try add(spool, "A.JPG")
        }
        // A crash after the sidecar said "delivered": the restart drops it, and its number with it.
        let sidecar = folder.appendingPathComponent("\(dropped.id).json")
        var entry = try XCTUnwrap(try JSONStateFile<SpoolEntry>(url: sidecar).load())
        entry.state = .delivered
        try JSONStateFile<SpoolEntry>(url: sidecar).save(entry)
        _ = try Spool.gallery(directory: folder)
        let reopened = try Spool.gallery(directory: folder)
        XCTAssertGreaterThan(try add(reopened, "B.JPG").sequence, dropped.sequence)
    }

    func testDeliveredSidecarLeftByACrashIsCleanedNotResent() throws {
        let id: String
        do {
            let spool = try Spool.gallery(directory: folder)
            id = try add(spool, "A.JPG").id
        }
        // Simulate a crash after the sidecar said "delivered" but before the files were removed.
        let sidecar = folder.appendingPathComponent("\(id).json")
        var entry = try XCTUnwrap(try JSONStateFile<SpoolEntry>(url: sidecar).load())
        entry.state = .delivered
        try JSONStateFile<SpoolEntry>(url: sidecar).save(entry)
        let reopened = try Spool.gallery(directory: folder)
        XCTAssertEqual(reopened.counts().queued, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("\(id).jpg").path))
    }

    func testPartialWritesAndOrphanSidecarsAreDiscarded() throws {
        do {
            let spool = try Spool.gallery(directory: folder)
            XCTAssertThrowsError(
                try spool.ingest(identity("A.JPG")) { fd in
                    try AtomicFile.writeAll(fd, Data([1, 2, 3]))
                    throw CocoaError(.fileWriteUnknown)
                })
            XCTAssertEqual(spool.counts().queued, 0)
        }
        let incoming = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(".incoming").path)
        XCTAssertEqual(incoming, [])
        let reopened = try Spool.gallery(directory: folder)
        XCTAssertEqual(reopened.counts().queued, 0)
    }

    func testPermanentFailureMovesToFailedAndRetryBringsItBack() throws {
        let spool = try Spool.gallery(directory: folder)
        try add(spool, "BAD.JPG")
        try add(spool, "GOOD.JPG")
        let bad = try XCTUnwrap(spool.claimNext())
        try spool.moveToFailed(bad, error: "HTTP 400", statusCode: 400)
        XCTAssertEqual(spool.counts().failed, 1)
        XCTAssertEqual(spool.claimNext()?.cameraFileName, "GOOD.JPG", "a failed photo does not block the rest")
        let snapshot = Spool.inspect(directory: folder)
        XCTAssertEqual(snapshot.failed.first?.lastStatusCode, 400)
        XCTAssertTrue(spool.contains(id: bad.id))
        XCTAssertEqual(try add(spool, "BAD.JPG").state, .failed, "a failed photo taken again is not queued a second time")
        XCTAssertEqual(spool.counts().queued, 0)
        XCTAssertEqual(try spool.retryFailed().map(\.id), [bad.id])
        XCTAssertEqual(spool.counts().failed, 0)
        XCTAssertEqual(spool.claimNext()?.id, bad.id)
    }

    func testAMoveToFailedCutShortByACrashLeavesThePhotoQueued() throws {
        let id: String
        do {
            let spool = try Spool.gallery(directory: folder)
            let entry = try add(spool, "A.JPG")
            id = entry.id
            // The failed sidecar was written, then the process died before the photo was moved.
            var failed = entry
            failed.state = .failed
            try JSONStateFile<SpoolEntry>(url: spool.failedDirectory.appendingPathComponent("\(id).json")).save(failed)
        }
        let reopened = try Spool.gallery(directory: folder)
        XCTAssertEqual(reopened.snapshot().queued.map(\.id), [id])
        XCTAssertEqual(reopened.counts().failed, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: reopened.failedDirectory.appendingPathComponent("\(id).json").path))
        let claimed = try XCTUnwrap(reopened.claimNext())
        XCTAssertEqual(try Data(contentsOf: reopened.photoURL(for: claimed)).count, 100)
    }

    /// Issue 26: a corrupt sidecar is moved aside as it was, with a message; its photo goes to
    /// failed/ (never sent on its own: the gallery may have it already) and relay retry sends it.
    func testAnUnreadableSidecarIsMovedAsideAndItsPhotoKeptInFailed() throws {
        let id: String
        do {
            let spool = try Spool.gallery(directory: folder)
            id = try add(spool, "A.JPG").id
            try add(spool, "B.JPG")
        }
        let sidecar = folder.appendingPathComponent("\(id).json")
        let garbage = Data("{ not json".utf8)
        try garbage.write(to: sidecar)
        var reopened: Spool? = try Spool.gallery(directory: folder)
        XCTAssertEqual(reopened!.snapshot().queued.map(\.cameraFileName), ["B.JPG"])
        XCTAssertEqual(reopened!.problems.count, 1)
        XCTAssertTrue(reopened!.problems[0].contains(sidecar.path), reopened!.problems[0])
        XCTAssertTrue(reopened!.problems[0].contains("relay retry \(id.prefix(8))"), reopened!.problems[0])
        XCTAssertEqual(try Data(contentsOf: sidecar.appendingPathExtension("corrupt")), garbage, "moved aside as it was")
        XCTAssertFalse(FileManager.default.fileExists(atPath: sidecar.path))
        let failed = try XCTUnwrap(reopened!.snapshot().failed.first)
        XCTAssertEqual(failed.id, id)
        XCTAssertEqual(failed.bytes, 100)
        XCTAssertEqual(try Data(contentsOf: reopened!.failedDirectory.appendingPathComponent("\(id).jpg")).count, 100, "the photo is kept")
        reopened = nil

        XCTAssertEqual(try Spool.gallery(directory: folder).retryFailed(ids: [String(id.prefix(8))]).map(\.id), [id])
        let again = try Spool.gallery(directory: folder)
        XCTAssertEqual(
            again.snapshot().queued.map(\.id).sorted(),
            [id, try XCTUnwrap(again.snapshot().queued.first { $0.cameraFileName == "B.JPG" }).id].sorted())
        XCTAssertEqual(again.problems, [], "reported once")
    }

    func testRequeueWaitsForItsDelayWithoutBlockingOthers() throws {
        let spool = try Spool.gallery(directory: folder)
        try add(spool, "A.JPG")
        try add(spool, "B.JPG")
        let a = try XCTUnwrap(spool.claimNext())
        spool.requeue(a, after: 3600, error: "HTTP 503", statusCode: 503)
        XCTAssertEqual(spool.claimNext()?.cameraFileName, "B.JPG")
        let a2 = spool.snapshot().queued.first
        XCTAssertEqual(a2?.lastStatusCode, 503)
    }

    func testBoundsMakeTheSourceWaitUntilThereIsRoom() throws {
        let spool = try Spool.gallery(directory: folder, limits: SpoolLimits(maxPhotos: 2, maxBytes: 1_000_000))
        try add(spool, "A.JPG")
        try add(spool, "B.JPG")
        XCTAssertTrue(spool.isFull)
        let roomMade = expectation(description: "room")
        let waiter = Thread {
            if spool.waitForRoom(bytes: 100) { roomMade.fulfill() }
        }
        waiter.start()
        let claimed = try XCTUnwrap(spool.claimNext())
        try spool.markDelivered(claimed)
        wait(for: [roomMade], timeout: 30)
    }

    func testByteBoundAllowsOneOversizedPhotoIntoAnEmptySpool() throws {
        let spool = try Spool.gallery(directory: folder, limits: SpoolLimits(maxPhotos: 10, maxBytes: 50))
        XCTAssertTrue(spool.waitForRoom(bytes: 500))
        try add(spool, "BIG.JPG", bytes: 500)
        XCTAssertTrue(spool.isFull)
    }

    func testCloseWakesWaiters() throws {
        let spool = try Spool.gallery(directory: folder)
        let done = expectation(description: "claimNext returns nil")
        Thread { if spool.claimNext() == nil { done.fulfill() } }.start()
        Thread.sleep(forTimeInterval: 0.1)
        spool.close()
        wait(for: [done], timeout: 30)
    }

    func testSecondOwnerIsRefused() throws {
        // flock conflicts between open file descriptions, so a second open in one process is refused too.
        let spool = try Spool.gallery(directory: folder)
        XCTAssertThrowsError(try Spool.gallery(directory: folder)) { error in
            XCTAssertTrue("\(error)".contains("another relay (pid \(getpid()))"), "\(error)")
        }
        withExtendedLifetime(spool) {}
    }
}
