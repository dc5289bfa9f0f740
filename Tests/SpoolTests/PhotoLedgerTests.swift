import Foundation
import Spool
import XCTest

/// A photo's life in the spool, as the pure ledger decides it: no files, no threads, the clock
/// passed in.
final class PhotoLedgerTests: XCTestCase {
    private let start = Date(timeIntervalSince1970: 1_800_000_000)
    private let gallery = SpoolDestinations.Destination(id: "A", label: "gallery", lowPriority: false)
    private let backup = SpoolDestinations.Destination(id: "B", label: "backup", lowPriority: false)
    private let archive = SpoolDestinations.Destination(id: "C", label: "archive", lowPriority: true)

    private func photo(_ number: Int, bytes: Int64 = 1_000, for destinations: SpoolDestinations? = nil) -> SpoolEntry {
        var entry = SpoolEntry(
            id: "photo\(number)", sequence: number, source: "test", cameraFileName: "IMG_\(number).JPG", uploadName: "IMG_\(number).JPG",
            bytes: bytes, capturedAt: start, spooledAt: start.addingTimeInterval(Double(number)), idempotencyKey: "photo\(number)")
        if let destinations {
            entry.destinations = Dictionary(
                uniqueKeysWithValues: ([destinations.primary] + destinations.others).map {
                    ($0.id, DestinationProgress(label: $0.label))
                })
        }
        return entry
    }

    // MARK: - One destination

    /// A photo whose rendition was made as it downloaded: not handed to the rendition thread
    /// again; once made, in flight for the worker that sent the rendition as it was written, or
    /// back in the queue (its attempt not counted) when that worker gave up before the handover.
    func testARenditionMadeWhileDownloadingIsHandedToItsWorkerOrQueuedAgain() throws {
        var ledger = PhotoLedger(destinations: nil, makesRenditions: true)
        ledger.admit(photo(1), inFlight: false, renditionUnderWay: true)
        ledger.admit(photo(2), inFlight: false)
        XCTAssertEqual(ledger.claimRendition()?.id, "photo2", "photo1's rendition is under way already")
        XCTAssertNil(ledger.claimQueued("photo1", at: start, pid: 1), "not before its rendition")
        ledger.renditionDone("photo1", nil)
        let sending = try XCTUnwrap(ledger.claimQueued("photo1", at: start, pid: 1))
        XCTAssertEqual(sending.attempts, 1)
        XCTAssertNil(ledger.claimQueued(at: start, pid: 1), "in flight, not queued")
        let back = try XCTUnwrap(ledger.unclaim("photo1"))
        XCTAssertEqual(back.attempts, 0)
        XCTAssertNil(back.inFlightSince)
        XCTAssertEqual(ledger.claimQueued(at: start, pid: 1)?.id, "photo1")
    }

    /// A photo whose upload during its download failed has a retry time; while it waits for its
    /// rendition that time does not wake the workers (they would spin until the rendition is made).
    func testARetryTimeOfAPhotoWaitingForItsRenditionWakesNoWorker() {
        var ledger = PhotoLedger(destinations: nil, makesRenditions: true)
        ledger.delay("photo1", until: start.addingTimeInterval(-1))
        ledger.admit(photo(1), inFlight: false)
        XCTAssertNil(ledger.nextQueuedRetry)
        ledger.renditionDone("photo1", nil)
        XCTAssertEqual(ledger.nextQueuedRetry, start.addingTimeInterval(-1))
    }

    func testTheQueueHandsOutPhotosOldestFirstOnceEach() throws {
        var ledger = PhotoLedger(destinations: nil, makesRenditions: false)
        ledger.admit(photo(2), inFlight: false)
        ledger.admit(photo(1), inFlight: false)
        let first = try XCTUnwrap(ledger.claimQueued(at: start, pid: 7))
        XCTAssertEqual(first.id, "photo2", "in the order they were committed")
        XCTAssertEqual(first.attempts, 1)
        XCTAssertEqual(first.inFlightSince, start)
        XCTAssertEqual(first.uploaderPID, 7)
        XCTAssertEqual(ledger.claimQueued(at: start, pid: 7)?.id, "photo1")
        XCTAssertNil(ledger.claimQueued(at: start, pid: 7), "nothing is handed out twice while in flight")
        XCTAssertEqual(ledger.counts.inFlight, 2)
    }

    func testARetryWaitsForItsTimeAndKeepsItsPlace() throws {
        var ledger = PhotoLedger(destinations: nil, makesRenditions: false)
        ledger.admit(photo(1), inFlight: false)
        ledger.admit(photo(2), inFlight: false)
        let first = try XCTUnwrap(ledger.claimQueued(at: start, pid: 1))
        let again = ledger.recordRetry(first, error: "HTTP 503", statusCode: 503)
        XCTAssertNil(again.inFlightSince)
        XCTAssertEqual(again.lastStatusCode, 503)
        ledger.requeue(again, notBefore: start.addingTimeInterval(30))
        XCTAssertEqual(ledger.queued.map(\.id), ["photo1", "photo2"], "back in sequence order")
        XCTAssertEqual(ledger.nextQueuedRetry, start.addingTimeInterval(30))
        XCTAssertEqual(ledger.claimQueued(at: start.addingTimeInterval(29), pid: 1)?.id, "photo2", "the one not waiting goes first")
        XCTAssertNil(ledger.claimQueued(at: start.addingTimeInterval(29), pid: 1))
        let retried = try XCTUnwrap(ledger.claimQueued(at: start.addingTimeInterval(30), pid: 1))
        XCTAssertEqual(retried.attempts, 2)
        ledger.finish(retried.id)
        XCTAssertFalse(ledger.contains("photo1"))
    }

    func testAPhotoWaitsForItsRenditionBeforeTheQueueHandsItOut() throws {
        var ledger = PhotoLedger(destinations: nil, makesRenditions: true)
        ledger.admit(photo(1), inFlight: false)
        XCTAssertNil(ledger.claimQueued(at: start, pid: 1), "no rendition yet")
        let making = try XCTUnwrap(ledger.claimRendition())
        XCTAssertNil(ledger.claimRendition(), "one rendition per photo")
        let rendition = SpoolRendition.original(spec: "2048", photoKey: making.idempotencyKey, reason: "test")
        ledger.renditionDone(making.id, rendition)
        XCTAssertEqual(ledger.claimQueued(at: start, pid: 1)?.rendition, rendition)
    }

    func testAPhotoSentWhileItDownloadedIsInFlightFromItsCommit() {
        var ledger = PhotoLedger(destinations: nil, makesRenditions: false)
        let reserved = ledger.reserve(for: "IMG_1.JPG", id: "photo1")
        XCTAssertEqual(reserved.uploadName, "IMG_1.JPG")
        XCTAssertEqual(
            ledger.uniqueUploadName(for: "IMG_1.JPG", sequence: 9, id: "other"), "IMG_1-9.JPG",
            "a name reserved by a photo still downloading is not given to another")
        XCTAssertEqual(ledger.uniqueUploadName(for: "IMG_1.JPG", sequence: 9, id: "photo1"), "IMG_1.JPG", "but is its own")
        var entry = photo(reserved.sequence)
        entry.id = "photo1"
        ledger.admit(entry, inFlight: true)
        XCTAssertNotNil(ledger.inFlight["photo1"])
        XCTAssertNil(ledger.claimQueued(at: start, pid: 1), "not handed to a second worker")
        XCTAssertEqual(ledger.uniqueUploadName(for: "IMG_1.JPG", sequence: 9, id: "other"), "IMG_1-9.JPG", "held by the spooled photo now")
    }

    func testRoomCountsEveryPhotoHeldAndLetsOneLargePhotoIntoAnEmptySpool() throws {
        let limits = SpoolLimits(maxPhotos: 2, maxBytes: 2_500)
        var ledger = PhotoLedger(destinations: nil, makesRenditions: false)
        XCTAssertTrue(ledger.hasRoom(forBytes: 10_000, limits: limits), "an empty spool takes a photo larger than its limit")
        ledger.admit(photo(1), inFlight: false)
        XCTAssertTrue(ledger.hasRoom(forBytes: 1_500, limits: limits))
        XCTAssertFalse(ledger.hasRoom(forBytes: 1_501, limits: limits))
        _ = try XCTUnwrap(ledger.claimQueued(at: start, pid: 1))
        ledger.admit(photo(2), inFlight: false)
        XCTAssertFalse(ledger.hasRoom(forBytes: 1, limits: limits), "in flight counts: two photos are the limit")
    }

    func testTheNumberToPersistIsCarriedByAHigherPhotoUntilItGoes() throws {
        var ledger = PhotoLedger(destinations: nil, makesRenditions: false)
        ledger.startNumbering(persisted: 4, highestFound: 6)
        XCTAssertEqual(ledger.takeSequence(), 7)
        XCTAssertNil(ledger.sequenceToPersist(atLeast: 3), "held already")
        ledger.admit(photo(7), inFlight: false)
        XCTAssertNil(ledger.sequenceToPersist(atLeast: 5), "photo 7's sidecar carries the numbers")
        _ = try XCTUnwrap(ledger.claimQueued(at: start, pid: 1))
        ledger.finish("photo7")
        XCTAssertEqual(ledger.sequenceToPersist(atLeast: 7), 7)
        ledger.persisted(7)
        XCTAssertNil(ledger.sequenceToPersist(atLeast: 7))
    }

    // MARK: - Several destinations

    func testAPhotoLeavesOnlyOnceEveryDestinationHasIt() throws {
        let run = SpoolDestinations(primary: gallery, others: [backup])
        var ledger = PhotoLedger(destinations: run, makesRenditions: false)
        ledger.admit(photo(1, for: run), inFlight: false)

        let forBackup = try XCTUnwrap(ledger.claim(for: "B", at: start), "the backup takes a committed photo at once")
        XCTAssertEqual(forBackup.destinations?["B"]?.attempts, 1)
        XCTAssertNil(ledger.claim(for: "B", at: start), "not twice while in flight")
        XCTAssertNotNil(ledger.settle("photo1", for: "B", .retry(after: 10, error: "503", statusCode: 503), at: start))
        XCTAssertNil(ledger.claim(for: "B", at: start.addingTimeInterval(9)))

        let forGallery = try XCTUnwrap(ledger.claimQueued(at: start, pid: 1))
        let waiting = ledger.settleQueueFed(forGallery, .delivered, error: nil, statusCode: nil)
        XCTAssertNil(waiting.inFlightSince)
        XCTAssertEqual(ledger.progress["photo1"]?["A"]?.state, .delivered)
        XCTAssertFalse(ledger.isSettled("photo1"), "the backup still needs it")
        XCTAssertNil(ledger.beginFinishing("photo1"))
        XCTAssertTrue(ledger.contains("photo1"), "its file stays for the backup")

        let again = try XCTUnwrap(ledger.claim(for: "B", at: start.addingTimeInterval(10)))
        XCTAssertEqual(again.destinations?["B"]?.attempts, 2)
        _ = ledger.settle("photo1", for: "B", .delivered, at: start.addingTimeInterval(11))
        let finishing = try XCTUnwrap(ledger.beginFinishing("photo1"))
        XCTAssertEqual(PhotoDestinations.settlement(finishing.progress), .delivered)
        XCTAssertNil(ledger.beginFinishing("photo1"), "finished once")
        XCTAssertFalse(ledger.isPending("photo1"), "no late sidecar write while it is being removed")
        ledger.endFinishing("photo1")
        XCTAssertFalse(ledger.contains("photo1"))
        XCTAssertEqual(ledger.counts.queued, 0)
    }

    func testAPhotoOneDestinationRefusedGoesToFailedOnceTheOthersSettled() throws {
        let run = SpoolDestinations(primary: gallery, others: [backup])
        var ledger = PhotoLedger(destinations: run, makesRenditions: false)
        ledger.admit(photo(1, for: run), inFlight: false)
        let forGallery = try XCTUnwrap(ledger.claimQueued(at: start, pid: 1))
        _ = ledger.settleQueueFed(forGallery, .failed, error: "HTTP 413", statusCode: 413)
        XCTAssertNil(ledger.beginFinishing("photo1"), "the backup has not settled")
        _ = try XCTUnwrap(ledger.claim(for: "B", at: start))
        XCTAssertNil(ledger.beginFinishing("photo1"), "nor while the backup is sending it")
        _ = ledger.settle("photo1", for: "B", .delivered, at: start)
        let finishing = try XCTUnwrap(ledger.beginFinishing("photo1"))
        XCTAssertEqual(PhotoDestinations.settlement(finishing.progress), .refused(reason: "gallery: HTTP 413", statusCode: 413))
    }

    func testALowPriorityDestinationUsesTheUplinkOnlyWhenNothingElseNeedsIt() throws {
        let run = SpoolDestinations(primary: gallery, others: [archive])
        var ledger = PhotoLedger(destinations: run, makesRenditions: false)
        ledger.admit(photo(1, for: run), inFlight: false)
        XCTAssertNil(ledger.claim(for: "C", at: start), "the gallery's photo is due")
        let forGallery = try XCTUnwrap(ledger.claimQueued(at: start, pid: 1))
        XCTAssertNil(ledger.claim(for: "C", at: start), "the gallery's photo is in flight")
        ledger.requeue(ledger.recordRetry(forGallery, error: nil, statusCode: nil), notBefore: start.addingTimeInterval(3600))
        XCTAssertNil(ledger.claim(for: "C", at: start, uploadingWhileDownloading: true), "a photo is being sent as it downloads")
        let forArchive = try XCTUnwrap(ledger.claim(for: "C", at: start), "the gallery waits an hour: the uplink is free")
        _ = ledger.settle(forArchive.id, for: "C", .retry(after: 0, error: nil, statusCode: nil), at: start)

        ledger.admit(photo(2, for: run), inFlight: false)
        XCTAssertNil(ledger.claim(for: "C", at: start), "photo 2 is due for the gallery")
        ledger.setQueueFedReachable(false)
        XCTAssertNotNil(ledger.claim(for: "C", at: start), "the gallery cannot be reached: nothing uses the uplink")
    }

    func testAPhotoTakenForADestinationThisRunLacksStaysAndIsCounted() throws {
        let earlier = SpoolDestinations(primary: gallery, others: [backup])
        let onlyGallery = SpoolDestinations(primary: gallery, others: [])
        var ledger = PhotoLedger(destinations: onlyGallery, makesRenditions: false)
        var delivered = photo(1, for: earlier)
        delivered.destinations?["A"]?.state = .delivered
        let found = ledger.resume(delivered)
        XCTAssertFalse(found.queued, "the gallery has it: not sent again")
        XCTAssertFalse(found.adopted)
        let older = ledger.resume(photo(2))
        XCTAssertTrue(older.adopted, "a sidecar without destinations takes the run's")
        XCTAssertTrue(older.queued)
        ledger.resumeQueued(older.entry, needsRendition: false)

        XCTAssertTrue(ledger.contains("photo1"))
        XCTAssertEqual(ledger.pendingForRun, 1, "only photo 2 is this run's to send")
        XCTAssertEqual(ledger.waitingElsewhere, [WaitingDestination(id: "B", label: "backup", photos: ["IMG_1.JPG"])])
        XCTAssertNil(ledger.beginFinishing("photo1"), "never dropped by a run without the backup")
    }

    func testReleasingADestinationSettlesWhatOnlyItWaitedFor() throws {
        let run = SpoolDestinations(primary: backup, others: [])
        let taken = SpoolDestinations(primary: gallery, others: [backup])
        var ledger = PhotoLedger(destinations: run, makesRenditions: false)
        var galleryHasIt = photo(1, for: taken)
        galleryHasIt.destinations?["A"]?.state = .delivered
        ledger.resumeQueued(ledger.resume(galleryHasIt).entry, needsRendition: false)
        ledger.resumeQueued(ledger.resume(photo(2, for: taken)).entry, needsRendition: false)
        XCTAssertEqual(ledger.queued.count, 2)

        XCTAssertNil(ledger.release("photo1", matching: "nobody"))
        let first = try XCTUnwrap(ledger.release("photo1", matching: "backup"))
        XCTAssertEqual(PhotoDestinations.settlement(first.destinations ?? [:]), .delivered, "it leaves the spool")
        let second = try XCTUnwrap(ledger.release("photo2", matching: "b"))
        XCTAssertEqual(PhotoDestinations.settlement(second.destinations ?? [:]), .waiting, "still the gallery's")
        XCTAssertEqual(ledger.queued.map(\.id), ["photo2"])
        XCTAssertNil(ledger.queued.first?.destinations?["B"])
    }

    func testEachDestinationsQueueIsCountedOnItsOwn() throws {
        let run = SpoolDestinations(primary: gallery, others: [backup])
        var ledger = PhotoLedger(destinations: run, makesRenditions: false)
        ledger.admit(photo(1, for: run), inFlight: false)
        ledger.admit(photo(2, for: run), inFlight: false)
        _ = try XCTUnwrap(ledger.claim(for: "B", at: start))
        _ = try XCTUnwrap(ledger.claimQueued(at: start, pid: 1))
        let queues = ledger.queues
        XCTAssertEqual(queues.primary.queued, 1)
        XCTAssertEqual(queues.primary.inFlight, 1)
        XCTAssertEqual(queues.others["B"]?.inFlight, 1)
        XCTAssertEqual(queues.others["B"]?.queued, 1)
        XCTAssertEqual(queues.others["B"]?.oldestQueuedAt, start.addingTimeInterval(2))
    }
}
