import Foundation
import Spool
import XCTest

/// A photo's life in the spool, as the pure ledger decides it: inputs in, actions out; no
/// files, no threads, the clock passed in.
final class PhotoLedgerTests: XCTestCase {
    private let start = Date(timeIntervalSince1970: 1_800_000_000)
    private let gallery = SpoolDestination(id: "A", label: "gallery", takesGrowing: true)
    private let backup = SpoolDestination(id: "B", label: "backup")
    private let archive = SpoolDestination(id: "C", label: "archive", lowPriority: true)

    private func photo(_ number: Int, bytes: Int64 = 1_000, for destinations: [SpoolDestination]) -> SpoolEntry {
        var entry = SpoolEntry(
            id: "photo\(number)", sequence: number, source: "test", cameraFileName: "IMG_\(number).JPG", uploadName: "IMG_\(number).JPG",
            bytes: bytes, capturedAt: start, spooledAt: start.addingTimeInterval(Double(number)), idempotencyKey: "photo\(number)")
        entry.destinations = Dictionary(uniqueKeysWithValues: destinations.map { ($0.id, DestinationProgress(label: $0.label)) })
        return entry
    }

    private func ledger(_ destinations: [SpoolDestination]) -> PhotoLedger {
        PhotoLedger(destinations: SpoolDestinations(destinations))
    }

    private func claim(_ ledger: inout PhotoLedger, _ destination: String, at now: Date? = nil, growing: GrowingAcceptance = .none)
        -> PhotoLedger.Step
    {
        ledger.apply(.claim(destination: destination, growing: growing, now: now ?? start, pid: 7))
    }

    /// The committed photo a claim handed out, if any.
    private func handed(_ step: PhotoLedger.Step) -> SpoolEntry? {
        if case .handOut(.spooled(let entry)) = step.answer { return entry }
        return nil
    }

    private func finishing(_ step: PhotoLedger.Step) -> PhotoDestinations.Settlement? {
        for case .finish(_, let settlement) in step.actions { return settlement }
        return nil
    }

    // MARK: - One destination

    func testTheQueueHandsOutPhotosOldestFirstOnceEachAndSaysWhenToAskAgain() throws {
        var ledger = ledger([gallery])
        _ = ledger.apply(.admit(photo(2, for: [gallery]), offer: nil, now: start, pid: 7))
        _ = ledger.apply(.admit(photo(1, for: [gallery]), offer: nil, now: start, pid: 7))
        let actions = claim(&ledger, "A")
        let first = try XCTUnwrap(handed(actions))
        XCTAssertEqual(first.id, "photo1", "in sequence order")
        XCTAssertEqual(first.attempts, 1)
        XCTAssertEqual(first.inFlightSince, start)
        XCTAssertEqual(first.uploaderPID, 7)
        XCTAssertEqual(actions.actions, [.saveSidecar(id: "photo1")], "the attempt is recorded before it is made")
        XCTAssertEqual(handed(claim(&ledger, "A"))?.id, "photo2")
        XCTAssertEqual(claim(&ledger, "A"), .answer(.wait(until: nil)), "nothing twice while in flight; no time to wake at")
        XCTAssertEqual(ledger.counts.inFlight, 2)
        XCTAssertEqual(claim(&ledger, "elsewhere"), .answer(.closed), "a destination the run lacks gets nothing")
    }

    func testARetryWaitsForItsTimeKeepsItsPlaceAndNamesWhenToWake() throws {
        var ledger = ledger([gallery])
        _ = ledger.apply(.admit(photo(1, for: [gallery]), offer: nil, now: start, pid: 7))
        _ = ledger.apply(.admit(photo(2, for: [gallery]), offer: nil, now: start, pid: 7))
        let first = try XCTUnwrap(handed(claim(&ledger, "A")))
        XCTAssertEqual(
            ledger.apply(.settle(id: first.id, destination: "A", .retry(after: 30, error: "HTTP 503", statusCode: 503), now: start)),
            [.saveSidecar(id: "photo1")])
        XCTAssertEqual(ledger.sidecar("photo1")?.lastStatusCode, 503)
        XCTAssertNil(ledger.sidecar("photo1")?.inFlightSince)
        XCTAssertEqual(ledger.leg("photo1", "A")?.state(at: start), .waiting(until: start.addingTimeInterval(30)))
        XCTAssertEqual(handed(claim(&ledger, "A", at: start.addingTimeInterval(29)))?.id, "photo2", "the one not waiting goes first")
        XCTAssertEqual(claim(&ledger, "A", at: start.addingTimeInterval(29)), .answer(.wait(until: start.addingTimeInterval(30))))
        let retried = try XCTUnwrap(handed(claim(&ledger, "A", at: start.addingTimeInterval(30))))
        XCTAssertEqual(retried.attempts, 2)
        let done = ledger.apply(.settle(id: "photo1", destination: "A", .delivered, now: start.addingTimeInterval(31)))
        XCTAssertEqual(finishing(done), .delivered)
        XCTAssertNil(ledger.sidecar("photo1"), "no sidecar write while it is being removed")
        _ = ledger.apply(.finished(id: "photo1"))
        XCTAssertFalse(ledger.contains("photo1"))
    }

    func testAPhotoWaitsForItsRenditionAndOnlyItsDestinationIsSentIt() throws {
        var ledger = ledger([SpoolDestination(id: "A", label: "gallery", rendition: "2048"), backup])
        _ = ledger.apply(.admit(photo(1, for: [gallery, backup]), offer: nil, now: start, pid: 7))
        XCTAssertEqual(claim(&ledger, "A", at: start), .answer(.wait(until: nil)), "no rendition yet")
        XCTAssertNil(handed(claim(&ledger, "B")).flatMap(\.rendition), "the backup takes the original at once")
        guard case .render(.committed(let making, _)) = ledger.apply(.claimRendition).answer else { return XCTFail("no rendition work") }
        XCTAssertEqual(ledger.apply(.claimRendition), .answer(.wait(until: nil)), "one rendition per photo")
        let rendition = SpoolRendition.made(spec: "2048", photoKey: making.idempotencyKey, bytes: 300, width: 2048, height: 1365)
        _ = ledger.apply(.renditionRecorded(id: making.id, rendition))
        XCTAssertEqual(ledger.sidecar("photo1")?.renditions?["2048"], rendition, "the sidecar says so before the photo may go")
        XCTAssertEqual(claim(&ledger, "A"), .answer(.wait(until: nil)), "not before it is stored")
        _ = ledger.apply(.renditionStored(id: making.id, spec: "2048", now: start, pid: 7))
        XCTAssertEqual(handed(claim(&ledger, "A"))?.rendition, rendition)
        XCTAssertEqual(
            ledger.apply(.settle(id: "photo1", destination: "A", .delivered, now: start)),
            [.removeRendition(id: "photo1", spec: "2048"), .saveSidecar(id: "photo1")],
            "the backup still sends the original: the rendition goes")
    }

    /// A photo whose upload during its download failed has a retry time; while it waits for its
    /// rendition that time wakes no worker (they would spin until the rendition is made).
    func testARetryTimeOfAPhotoWaitingForItsRenditionWakesNoWorker() {
        let renditions = SpoolDestination(id: "A", label: "gallery", rendition: "2048")
        var ledger = ledger([renditions])
        _ = ledger.apply(.admit(photo(1, for: [renditions]), offer: nil, now: start, pid: 7))
        _ = ledger.apply(.renditionStored(id: "photo1", spec: "2048", now: start, pid: 7))
        _ = handed(claim(&ledger, "A"))
        _ = ledger.apply(.settle(id: "photo1", destination: "A", .retry(after: 5, error: nil, statusCode: nil), now: start))
        XCTAssertEqual(claim(&ledger, "A"), .answer(.wait(until: start.addingTimeInterval(5))))
        _ = ledger.apply(.admit(photo(2, for: [renditions]), offer: nil, now: start, pid: 7))
        XCTAssertEqual(
            claim(&ledger, "A"), .answer(.wait(until: start.addingTimeInterval(5))), "photo 2 waits for its rendition, not a time")
    }

    func testRoomCountsEveryPhotoHeldAndLetsOneLargePhotoIntoAnEmptySpool() throws {
        let limits = SpoolLimits(maxPhotos: 2, maxBytes: 2_500)
        var ledger = ledger([gallery])
        XCTAssertTrue(ledger.hasRoom(forBytes: 10_000, limits: limits), "an empty spool takes a photo larger than its limit")
        _ = ledger.apply(.admit(photo(1, for: [gallery]), offer: nil, now: start, pid: 7))
        XCTAssertTrue(ledger.hasRoom(forBytes: 1_500, limits: limits))
        XCTAssertFalse(ledger.hasRoom(forBytes: 1_501, limits: limits))
        _ = try XCTUnwrap(handed(claim(&ledger, "A")))
        _ = ledger.apply(.admit(photo(2, for: [gallery]), offer: nil, now: start, pid: 7))
        XCTAssertFalse(ledger.hasRoom(forBytes: 1, limits: limits), "in flight counts: two photos are the limit")
    }

    func testTheNumberToPersistIsCarriedByAHigherPhotoUntilItGoes() throws {
        var ledger = ledger([gallery])
        _ = ledger.apply(.numbering(persisted: 4, highestFound: 6))
        XCTAssertEqual(ledger.takeSequence(), 7)
        XCTAssertNil(ledger.sequenceToPersist(atLeast: 3), "held already")
        _ = ledger.apply(.admit(photo(7, for: [gallery]), offer: nil, now: start, pid: 7))
        XCTAssertNil(ledger.sequenceToPersist(atLeast: 5), "photo 7's sidecar carries the numbers")
        _ = ledger.apply(.settle(id: try XCTUnwrap(handed(claim(&ledger, "A"))).id, destination: "A", .delivered, now: start))
        XCTAssertEqual(ledger.sequenceToPersist(atLeast: 7), 7, "being removed, it carries nothing")
        _ = ledger.apply(.persisted(7))
        XCTAssertNil(ledger.sequenceToPersist(atLeast: 7))
    }

    // MARK: - Photos read as they download

    func testAPhotoSentWhileItDownloadedIsInFlightForItsWorkerFromItsCommit() throws {
        var ledger = ledger([gallery, backup])
        let kept = ledger.reserve(id: "photo1", fileName: "IMG_1.JPG")
        XCTAssertEqual(kept.uploadName, "IMG_1.JPG")
        _ = ledger.reserve(id: "other", fileName: "IMG_1.JPG")
        var provisional = photo(kept.sequence, for: [])
        provisional.id = "photo1"
        provisional.attempts = 1
        _ = ledger.apply(.offer(provisional, offer: 1))
        XCTAssertEqual(
            claim(&ledger, "B", growing: .any), .answer(.wait(until: nil)), "a photo downloading goes to the first destination only")
        XCTAssertEqual(claim(&ledger, "A", growing: .sized), .answer(.handOut(.growing(offer: 1))))
        XCTAssertTrue(ledger.isRead("photo1", offer: 1))
        XCTAssertEqual(claim(&ledger, "A", growing: .any), .answer(.wait(until: nil)), "one reader")
        let committing = ledger.committing("photo1", fileName: "IMG_1.JPG", reservation: kept, offer: 1)
        XCTAssertEqual(committing.0, kept)
        XCTAssertEqual(committing.inFlightAttempts, 1, "its sidecar says in flight")
        var entry = photo(kept.sequence, for: [gallery, backup])
        entry.id = "photo1"
        entry.inFlightSince = start
        let admitted = ledger.apply(.admit(entry, offer: 1, now: start, pid: 7))
        XCTAssertEqual(admitted.actions.count, 1, "no second sidecar write")
        guard case .end(offer: 1, .committed(let sending))? = admitted.actions.first else { return XCTFail("\(admitted)") }
        XCTAssertEqual(sending.attempts, 1)
        XCTAssertEqual(claim(&ledger, "A"), .answer(.wait(until: nil)), "not handed to a second worker")
        XCTAssertEqual(handed(claim(&ledger, "B"))?.id, "photo1", "the backup takes it once committed")
        XCTAssertEqual(
            ledger.apply(.endCutThrough(id: "photo1", sequence: kept.sequence, destination: "A", offer: 1, retryDelay: 5, now: start)),
            .answer(
                .cutThrough(
                    .committed(
                        ledger.entry("photo1").map {
                            var e = $0
                            e.rendition = nil
                            e.attempts = 1
                            e.inFlightSince = start
                            return e
                        }!))),
            "a worker that got no answer still has it in flight, to settle by the usual rules")
    }

    func testAnUploadGivenUpBeforeTheCommitLeavesThePhotoQueuedAfterItsDelay() throws {
        var ledger = ledger([gallery])
        var provisional = photo(1, for: [])
        provisional.attempts = 1
        _ = ledger.apply(.offer(provisional, offer: 1))
        XCTAssertEqual(claim(&ledger, "A", growing: .any), .answer(.handOut(.growing(offer: 1))))
        XCTAssertEqual(
            ledger.apply(.endCutThrough(id: "photo1", sequence: 1, destination: "A", offer: 1, retryDelay: 10, now: start)),
            .answer(.cutThrough(.abandoned), .end(offer: 1, .abandoned), .persistSequence(atLeast: 1)),
            "no sidecar carries its number: `.sequence` keeps it")
        let committing = ledger.committing("photo1", fileName: "IMG_1.JPG", reservation: nil, offer: 1)
        XCTAssertEqual(committing.0, Reservation(sequence: 1, uploadName: "IMG_1.JPG"))
        XCTAssertNil(committing.inFlightAttempts)
        XCTAssertEqual(ledger.apply(.admit(photo(1, for: [gallery]), offer: 1, now: start, pid: 7)), [])
        XCTAssertEqual(claim(&ledger, "A", at: start.addingTimeInterval(9)), .answer(.wait(until: start.addingTimeInterval(10))))
        XCTAssertEqual(handed(claim(&ledger, "A", at: start.addingTimeInterval(10)))?.attempts, 1)
    }

    /// A download withdrawn and offered again is a new offer: the worker holding the old one is
    /// never told the photo is in flight for it.
    func testAWorkerHoldingAWithdrawnOfferIsNeverHandedThePhoto() throws {
        var ledger = ledger([gallery])
        var provisional = photo(1, for: [])
        provisional.attempts = 1
        _ = ledger.apply(.offer(provisional, offer: 1))
        _ = claim(&ledger, "A", growing: .any)
        XCTAssertEqual(ledger.apply(.withdraw(id: "photo1", offer: 1)), [.end(offer: 1, .abandoned)])
        _ = ledger.apply(.offer(provisional, offer: 2))
        XCTAssertEqual(claim(&ledger, "A", growing: .any), .answer(.handOut(.growing(offer: 2))))
        _ = ledger.committing("photo1", fileName: "IMG_1.JPG", reservation: nil, offer: 2)
        _ = ledger.apply(.admit(photo(1, for: [gallery]), offer: 2, now: start, pid: 7))
        XCTAssertEqual(
            ledger.apply(.endCutThrough(id: "photo1", sequence: 1, destination: "A", offer: 1, retryDelay: 0, now: start)),
            .answer(.cutThrough(.abandoned), .persistSequence(atLeast: 1)))
    }

    /// A rendition made while its photo downloads: the rendition thread that read the photo
    /// finishes it; its upload's worker gets the photo in flight once the sidecar says so, or it
    /// goes back to the queue (its attempt not counted) when that worker gave up meanwhile.
    func testARenditionMadeWhileDownloadingIsHandedToItsWorkerOrQueuedAgain() throws {
        let renditions = SpoolDestination(id: "A", label: "gallery", rendition: "2048", takesGrowing: true)
        var ledger = ledger([renditions])
        _ = ledger.apply(.offer(photo(1, for: []), offer: 1))
        XCTAssertEqual(claim(&ledger, "A", growing: .any), .answer(.wait(until: nil)), "the photo itself is the rendition thread's")
        XCTAssertEqual(ledger.apply(.claimRendition), .answer(.render(.growing(offer: 1, spec: "2048"))))
        var upload = photo(1, bytes: 0, for: [])
        upload.rendition = .made(spec: "2048", photoKey: "photo1", bytes: 0, width: 0, height: 0)
        _ = ledger.apply(.offerRendition(upload, offer: 2))
        XCTAssertEqual(claim(&ledger, "A", growing: .sized), .answer(.wait(until: nil)), "a rendition's size is known only at its end")
        XCTAssertEqual(claim(&ledger, "A", growing: .any), .answer(.handOut(.growing(offer: 2))))
        _ = ledger.committing("photo1", fileName: "IMG_1.JPG", reservation: nil, offer: 1)
        guard
            case .end(offer: 1, .committed)? = ledger.apply(.admit(photo(1, for: [renditions]), offer: 1, now: start, pid: 7)).actions.first
        else {
            return XCTFail("the rendition thread finishes it")
        }
        XCTAssertEqual(ledger.apply(.claimRendition), .answer(.wait(until: nil)), "its rendition is under way already")
        let rendition = SpoolRendition.made(spec: "2048", photoKey: "photo1", bytes: 300, width: 2048, height: 1365)
        _ = ledger.apply(.renditionRecorded(id: "photo1", rendition))
        let stored = ledger.apply(.renditionStored(id: "photo1", spec: "2048", now: start, pid: 7))
        guard case .handOver(offer: 2, let sending)? = stored.actions.first else { return XCTFail("\(stored)") }
        XCTAssertEqual(sending.attempts, 1)
        XCTAssertEqual(claim(&ledger, "A"), .answer(.wait(until: nil)), "no other worker takes it meanwhile")
        XCTAssertEqual(
            ledger.apply(.handedOver(id: "photo1", offer: 2, saved: false)), [.end(offer: 2, .abandoned), .saveSidecar(id: "photo1")])
        XCTAssertEqual(ledger.sidecar("photo1")?.attempts, 0, "its attempt is not counted")
        XCTAssertEqual(handed(claim(&ledger, "A"))?.rendition, rendition)
    }

    // MARK: - Several destinations

    func testAPhotoLeavesOnlyOnceEveryDestinationHasIt() throws {
        var ledger = ledger([gallery, backup])
        _ = ledger.apply(.admit(photo(1, for: [gallery, backup]), offer: nil, now: start, pid: 7))
        let forBackup = try XCTUnwrap(handed(claim(&ledger, "B")), "the backup takes a committed photo at once")
        XCTAssertEqual(forBackup.destinations?["B"]?.attempts, 1)
        XCTAssertEqual(claim(&ledger, "B"), .answer(.wait(until: nil)), "not twice while in flight")
        _ = ledger.apply(.settle(id: "photo1", destination: "B", .retry(after: 10, error: "503", statusCode: 503), now: start))
        XCTAssertEqual(claim(&ledger, "B", at: start.addingTimeInterval(9)), .answer(.wait(until: start.addingTimeInterval(10))))

        _ = try XCTUnwrap(handed(claim(&ledger, "A")))
        XCTAssertEqual(ledger.apply(.settle(id: "photo1", destination: "A", .delivered, now: start)), [.saveSidecar(id: "photo1")])
        XCTAssertEqual(ledger.sidecar("photo1")?.destinations?["A"]?.state, .delivered)
        XCTAssertTrue(ledger.contains("photo1"), "its file stays for the backup")

        XCTAssertEqual(handed(claim(&ledger, "B", at: start.addingTimeInterval(10)))?.destinations?["B"]?.attempts, 2)
        let done = ledger.apply(.settle(id: "photo1", destination: "B", .delivered, now: start.addingTimeInterval(11)))
        XCTAssertEqual(finishing(done), .delivered)
        XCTAssertEqual(ledger.apply(.started(renditionFiles: [:])), [], "finished once")
        _ = ledger.apply(.finished(id: "photo1"))
        XCTAssertEqual(ledger.counts.queued, 0)
    }

    func testAPhotoOneDestinationRefusedGoesToFailedOnceTheOthersSettled() throws {
        var ledger = ledger([gallery, backup])
        _ = ledger.apply(.admit(photo(1, for: [gallery, backup]), offer: nil, now: start, pid: 7))
        _ = handed(claim(&ledger, "A"))
        XCTAssertNil(
            finishing(ledger.apply(.settle(id: "photo1", destination: "A", .failed(error: "HTTP 413", statusCode: 413), now: start))))
        _ = try XCTUnwrap(handed(claim(&ledger, "B")))
        let done = ledger.apply(.settle(id: "photo1", destination: "B", .delivered, now: start))
        XCTAssertEqual(finishing(done), .refused(reason: "gallery: HTTP 413", statusCode: 413))
        XCTAssertEqual(ledger.apply(.finishFailed(id: "photo1", photoLeft: false, now: start)), [.saveSidecar(id: "photo1")])
        XCTAssertEqual(
            ledger.leg("photo1", "A")?.state(at: start), .waiting(until: start.addingTimeInterval(60)),
            "a refusal that could not be moved to failed/ is tried again in a minute")
        _ = handed(claim(&ledger, "A", at: start.addingTimeInterval(60)))
        _ = ledger.apply(.settle(id: "photo1", destination: "A", .failed(error: "HTTP 413", statusCode: 413), now: start))
        _ = ledger.apply(.finished(id: "photo1"))
        XCTAssertEqual(ledger.queues["A"]?.failed, 1)
        XCTAssertEqual(ledger.queues["B"]?.failed, 0)
    }

    /// A refusal that could not be moved to failed/ is tried again in a minute; the rendition
    /// its leg takes was removed when it refused, so it is made again first.
    func testARefusalThatCouldNotBeMovedWaitsForItsRenditionAgain() throws {
        let renditions = SpoolDestination(id: "A", label: "gallery", rendition: "2048")
        var ledger = ledger([renditions, backup])
        _ = ledger.apply(.admit(photo(1, for: [renditions, backup]), offer: nil, now: start, pid: 7))
        _ = ledger.apply(.renditionRecorded(id: "photo1", .made(spec: "2048", photoKey: "photo1", bytes: 300, width: 2048, height: 1365)))
        _ = ledger.apply(.renditionStored(id: "photo1", spec: "2048", now: start, pid: 7))
        _ = try XCTUnwrap(handed(claim(&ledger, "A")))
        let refused = ledger.apply(.settle(id: "photo1", destination: "A", .failed(error: "HTTP 413", statusCode: 413), now: start))
        XCTAssertTrue(refused.actions.contains(.removeRendition(id: "photo1", spec: "2048")))
        _ = try XCTUnwrap(handed(claim(&ledger, "B")))
        XCTAssertNotNil(finishing(ledger.apply(.settle(id: "photo1", destination: "B", .delivered, now: start))))
        _ = ledger.apply(.finishFailed(id: "photo1", photoLeft: false, now: start))
        XCTAssertEqual(claim(&ledger, "A", at: start.addingTimeInterval(60)), .answer(.wait(until: nil)), "not without its rendition")
        guard case .render(.committed(let making, _)) = ledger.apply(.claimRendition).answer else { return XCTFail("no rendition to make") }
        XCTAssertNil(making.rendition)
    }

    func testALowPriorityDestinationUsesTheUplinkOnlyWhenNothingElseNeedsIt() throws {
        var ledger = ledger([gallery, backup, archive])
        _ = ledger.apply(.admit(photo(1, for: [gallery, archive]), offer: nil, now: start, pid: 7))
        XCTAssertEqual(claim(&ledger, "C"), .answer(.wait(until: nil)), "the gallery's photo is due")
        _ = try XCTUnwrap(handed(claim(&ledger, "A")))
        XCTAssertEqual(claim(&ledger, "C"), .answer(.wait(until: nil)), "the gallery's photo is in flight")
        _ = ledger.apply(.settle(id: "photo1", destination: "A", .retry(after: 3600, error: nil, statusCode: nil), now: start))
        var downloading = photo(9, for: [])
        downloading.attempts = 1
        _ = ledger.apply(.offer(downloading, offer: 1))
        _ = claim(&ledger, "A", growing: .any)
        XCTAssertEqual(claim(&ledger, "C"), .answer(.wait(until: nil)), "a photo is being sent as it downloads")
        _ = ledger.apply(.endCutThrough(id: "photo9", sequence: 9, destination: "A", offer: 1, retryDelay: 0, now: start))
        let forArchive = try XCTUnwrap(handed(claim(&ledger, "C")), "the gallery waits an hour: the uplink is free")
        _ = ledger.apply(.settle(id: forArchive.id, destination: "C", .retry(after: 0, error: nil, statusCode: nil), now: start))

        _ = ledger.apply(.admit(photo(2, for: [gallery, backup, archive]), offer: nil, now: start, pid: 7))
        _ = handed(claim(&ledger, "A"))
        _ = ledger.apply(.settle(id: "photo2", destination: "A", .delivered, now: start))
        XCTAssertEqual(claim(&ledger, "C"), .answer(.wait(until: nil)), "photo 2 is due for the backup")
        _ = ledger.apply(.reachable(destination: "B", false))
        XCTAssertNotNil(handed(claim(&ledger, "C")), "the backup cannot be reached: nothing uses the uplink")
    }

    func testAPhotoTakenForADestinationThisRunLacksStaysAndIsCounted() throws {
        var ledger = ledger([gallery])
        var delivered = photo(1, for: [gallery, backup])
        delivered.destinations?["A"]?.state = .delivered
        XCTAssertEqual(ledger.apply(.found(delivered, FoundFiles())), [])
        var older = photo(2, for: [])
        older.destinations = nil
        XCTAssertEqual(
            ledger.apply(.found(older, FoundFiles())), .answer(.adopted), "a sidecar without destinations takes the run's")
        XCTAssertEqual(ledger.apply(.started(renditionFiles: [:])), [], "never dropped by a run without the backup")
        XCTAssertTrue(ledger.contains("photo1"))
        XCTAssertEqual(ledger.pendingForRun, 1, "only photo 2 is this run's to send")
        XCTAssertEqual(ledger.waitingElsewhere, [WaitingDestination(id: "B", label: "backup", photos: ["IMG_1.JPG"])])
        XCTAssertEqual(handed(claim(&ledger, "A"))?.id, "photo2")
    }

    func testASpoolOnlyLookedAfterHandsOutNothingAndFinishesNothingOnItsOwn() {
        var ledger = PhotoLedger(destinations: .none)
        var older = photo(1, for: [])
        older.destinations = nil
        XCTAssertEqual(ledger.apply(.found(older, FoundFiles())), [], "not adopted: no run decides")
        XCTAssertEqual(ledger.apply(.started(renditionFiles: [:])), [])
        XCTAssertEqual(claim(&ledger, "A"), .answer(.closed))
        XCTAssertNil(ledger.entry("photo1")?.destinations)
    }

    func testReleasingADestinationSettlesWhatOnlyItWaitedFor() throws {
        var ledger = PhotoLedger(destinations: .none)
        var galleryHasIt = photo(1, for: [gallery, backup])
        galleryHasIt.destinations?["A"]?.state = .delivered
        _ = ledger.apply(.found(galleryHasIt, FoundFiles()))
        _ = ledger.apply(.found(photo(2, for: [gallery, backup]), FoundFiles()))

        XCTAssertEqual(ledger.apply(.release(id: "photo1", query: "nobody")), [])
        XCTAssertEqual(finishing(ledger.apply(.release(id: "photo1", query: "backup"))), .delivered, "it leaves the spool")
        let second = ledger.apply(.release(id: "photo2", query: "b"))
        XCTAssertEqual(second.actions, [.saveSidecar(id: "photo2")], "still the gallery's")
        XCTAssertNil(ledger.sidecar("photo2")?.destinations?["B"])
    }

    func testEachDestinationsQueueIsCountedOnItsOwn() throws {
        var ledger = ledger([gallery, backup])
        _ = ledger.apply(.admit(photo(1, for: [gallery, backup]), offer: nil, now: start, pid: 7))
        _ = ledger.apply(.admit(photo(2, for: [gallery, backup]), offer: nil, now: start, pid: 7))
        _ = try XCTUnwrap(handed(claim(&ledger, "B")))
        _ = try XCTUnwrap(handed(claim(&ledger, "A")))
        let queues = ledger.queues
        XCTAssertEqual(queues["A"]?.queued, 1)
        XCTAssertEqual(queues["A"]?.inFlight, 1)
        XCTAssertEqual(queues["B"]?.inFlight, 1)
        XCTAssertEqual(queues["B"]?.queued, 1)
        XCTAssertEqual(queues["B"]?.oldestQueuedAt, start.addingTimeInterval(2))
    }
}
