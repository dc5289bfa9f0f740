import Foundation
import PTPIP
import PTPWire
import RelayCore
import Spool

/// Serves one connected camera until relay stops or the connection fails: learns of new files
/// (the dialect's events, and a periodic listing that catches a missed event and what was shot
/// while relay was away), decides about each, and downloads those it takes into the spool.
///
/// Work is done in small steps with the camera polled between them, downloads first, so that a
/// new shot is noticed within a poll interval even while a backlog is worked through. A session
/// ends by throwing the camera's error (the source reconnects) or, when relay stops, by returning
/// after a clean stop.
final class TetherSession {
    struct Context {
        let spool: Spool
        let registry: CameraRegistry
        let options: CameraSource.Options
        let report: @Sendable (TetherEvent) -> Void
        let stop: StopFlag
    }

    /// A complete, checked download not yet committed to the spool.
    private struct Downloaded {
        var candidate: Candidate
        var incoming: IncomingPhoto
    }

    private struct Candidate {
        var object: CameraObject
        var detectedAt: Date
        /// The timed-capture shot that made it.
        var shot: Int?
    }

    private let session: CameraSession
    private let memory: CameraMemory
    private let context: Context
    private var events: any CameraEventSource
    /// What was decided per handle in this session.
    private var known: [UInt32: TakeDecision] = [:]
    private var announced: [ObjectAnnouncement] = []
    private var backlog: [UInt32] = []
    private var downloads: [Candidate] = []
    /// The last download, flushing to disk while the next one runs (committed by `commitFlushed`).
    private var flushing: Downloaded?
    /// Downloads wait until then after a spool write failed (a full disk).
    private var downloadsPausedUntil: TimeInterval = 0
    private var reportedWaitingForRoom = false
    /// First connection to this camera: handles on the card before it, and the seen-log lines of
    /// those decided so far.
    private var existing: Set<UInt32>?
    private var existingLines: [UInt32: (key: String, file: String)] = [:]
    private var firstConnectionPending: Bool
    private var lastListing: TimeInterval = 0
    private var listingWorks = true
    /// Handles on the card when the session started: shot before it, so they cannot be the
    /// photo of a trigger fired in it.
    private var onCardAtConnect: Set<UInt32> = []
    /// How a timed capture fires this camera (nil: no capture, or the camera cannot be fired).
    private var trigger: CaptureTrigger?

    /// ObjectInfos read per step while working through a listing.
    static let backlogBatch = 16
    /// Longest wait for events when there is nothing else to do.
    static let idleWait = 0.25
    /// How long a spool write failure pauses downloads.
    static let spoolRetryDelay = 5.0
    /// Time per operation of the clean stop.
    static let stopOperationTimeout = 0.4

    init(session: CameraSession, memory: CameraMemory, context: Context, firstConnection: Bool) {
        self.session = session
        self.memory = memory
        self.context = context
        events = session.dialect.makeEventSource()
        firstConnectionPending = firstConnection
    }

    private var now: TimeInterval { ProcessInfo.processInfo.systemUptime }

    /// Serves the camera until relay stops (returns after a clean stop) or the camera fails
    /// (throws; whatever was downloaded so far stays in `memory.partials`).
    func run() throws(PTPIPError) {
        // A photo downloaded in full is committed whatever ends the session.
        defer { commitFlushed(wait: true) }
        let listing = try list() ?? []
        backlog = listing
        onCardAtConnect = Set(listing)
        if firstConnectionPending && !context.options.includeExisting { existing = Set(listing) }
        announced += try events.start(session)
        if session.busyAnswers > 0 {
            context.report(.info("\(session.name) answered DeviceBusy \(session.busyAnswers) time(s) while starting; relay waited it out"))
        }
        context.report(.info("connected to \(session.name) at \(session.address) (\(session.dialect))"))
        context.report(.status("\(session.deviceInfo.model) connected"))
        if let capture = context.options.capture {
            switch CaptureTrigger.of(session) {
            case .success(let found):
                trigger = found
                capture.cameraReady(name: session.name, triggerProblem: nil)
            case .failure(let unavailable):
                capture.cameraReady(name: session.name, triggerProblem: unavailable.reason)
            }
        }
        do throws(PTPIPError) {
            while !context.stop.isStopped {
                try fireDueShot()
                let worked = try step()
                if let error = memory.recordPending() {
                    context.report(.problem("photos are spooled but could not be remembered as taken: \(error)"))
                }
                let untilShot = context.options.capture?.secondsUntilNextShot() ?? Self.idleWait
                let wait = worked || hasWork ? 0 : max(0, min(Self.idleWait, untilShot))
                announce(try events.poll(session, wait: wait))
            }
        } catch .interrupted {
            // Relay is stopping and a wait for the camera was given up: fall through to the stop.
        }
        stopCleanly()
    }

    /// Objects the camera announced after the start-up: shot during this session, so new even
    /// when the first connection's listing already held them (a shot right after connecting).
    private func announce(_ announcements: [ObjectAnnouncement]) {
        for announcement in announcements {
            if existing?.remove(announcement.handle) != nil, known[announcement.handle] == .existing {
                known[announcement.handle] = nil
                existingLines[announcement.handle] = nil
            }
            announced.append(announcement)
        }
    }

    /// Whether something is ready to be done without waiting for the camera.
    private var hasWork: Bool {
        !announced.isEmpty || !backlog.isEmpty || (!downloads.isEmpty && downloadReady)
    }

    private var downloadReady: Bool {
        guard let first = downloads.first, now >= downloadsPausedUntil else { return false }
        return context.spool.hasRoom(forBytes: Int64(first.object.info.compressedSize))
    }

    /// One unit of work: a download, an announced object, or a batch of the listing. Returns
    /// whether it did anything.
    private func step() throws(PTPIPError) -> Bool {
        commitFlushed(wait: !downloadReady)
        if !downloads.isEmpty {
            if downloadReady {
                reportedWaitingForRoom = false
                try download(downloads.removeFirst())
                return true
            }
            if now >= downloadsPausedUntil && !reportedWaitingForRoom {
                reportedWaitingForRoom = true
                context.report(.waitingForRoom)
                context.report(.status("spool full: \(downloads.count) photo(s) wait on the camera"))
            }
        }
        if !announced.isEmpty {
            let announcement = announced.removeFirst()
            try examine(announcement.handle, needsTransferComplete: announcement.needsTransferComplete)
            return true
        }
        if !backlog.isEmpty {
            for handle in backlog.prefix(Self.backlogBatch) { try examine(handle, needsTransferComplete: false) }
            backlog.removeFirst(min(Self.backlogBatch, backlog.count))
            return true
        }
        finishFirstConnection()
        if now - lastListing >= context.options.crossCheckInterval {
            try crossCheck()
        }
        return false
    }

    // MARK: - Deciding

    private func examine(_ handle: UInt32, needsTransferComplete: Bool) throws(PTPIPError) {
        guard known[handle] == nil else { return }
        let reply = try session.call(.getObjectInfo, [handle], dataIn: .collect(limit: CameraSession.collectLimit))
        if reply.code == .invalidObjectHandle { return }
        try CameraSession.requireOK(reply, .getObjectInfo, address: session.address)
        let info: PTPObjectInfo
        do {
            info = try PTPObjectInfo(decoding: reply.data ?? [])
        } catch {
            known[handle] = .skipOther
            context.report(.problem("the camera's description of object \(String(handle, radix: 16)) is unreadable (\(error)); it is left on the card"))
            return
        }
        let object = CameraObject(handle: handle, info: info, needsTransferComplete: needsTransferComplete)
        let key = object.identityKey
        let decision = TakeDecision.decide(object, seen: memory.wasSeen(key), existing: existing?.contains(handle) ?? false,
                                           includeRAW: context.options.includeRAW)
        known[handle] = decision
        switch decision {
        case .take:
            downloads.append(Candidate(object: object, detectedAt: Date(), shot: shotConfirmed(by: object, willUpload: true)))
        case .existing:
            existingLines[handle] = (key, info.filename)
        case .skipRAW, .skipOther:
            if decision == .skipRAW { _ = shotConfirmed(by: object, willUpload: false) }
            if memory.skippedKeys.insert(key).inserted {
                let kind = decision == .skipRAW ? "RAW, kept on the card (--include-raw takes RAW files too)" : "not a photo relay uploads"
                context.report(.skipped(fileName: info.filename, reason: kind))
            }
            if needsTransferComplete { try releaseFromCameraMemory(object) }
        case .alreadyTaken:
            if needsTransferComplete { try releaseFromCameraMemory(object) }
        case .folder:
            break
        }
    }

    /// On the first connection, once the files that were on the card have all been looked at,
    /// records them as not to be taken (one write), so that a later connection takes only what
    /// is new.
    private func finishFirstConnection() {
        guard firstConnectionPending else { return }
        do {
            try memory.seen.record(existingLines.sorted { $0.key < $1.key }.map(\.value))
            try context.registry.noteExistingPhotosRecorded(serial: memory.serial)
        } catch {
            context.report(.problem("could not record the photos already on the card (\(error)); will try again"))
            return
        }
        firstConnectionPending = false
        let photos = existingLines.count
        existingLines.removeAll()
        if photos > 0 {
            context.report(.info("\(photos) file(s) were already on the card of \(session.name) and stay there; "
                + "relay takes what is shot from now on (--include-existing takes those too)"))
        }
    }

    // MARK: - Timed capture

    /// Fires the timed capture's shot if one is due. A lost connection throws (the shot's photo
    /// may still appear after the reconnect).
    private func fireDueShot() throws(PTPIPError) {
        guard let capture = context.options.capture, let trigger, let shot = capture.takeDueShot() else { return }
        switch try trigger.fire(session, stop: context.stop) {
        case .accepted(let busyRetries): capture.triggerAccepted(shot, busyRetries: busyRetries)
        case .failed(let reason): capture.triggerFailed(shot, reason: reason)
        }
    }

    /// The shot a new photo confirms, if a timed capture waits for one.
    private func shotConfirmed(by object: CameraObject, willUpload: Bool) -> Int? {
        context.options.capture?.photoAppeared(fileName: object.info.filename,
                                               wasOnCardAtConnect: onCardAtConnect.contains(object.handle),
                                               willUpload: willUpload)
    }

    // MARK: - Listing

    /// Every object handle on the camera's storages; nil when the camera cannot list them (then
    /// relay relies on its events alone).
    private func list() throws(PTPIPError) -> [UInt32]? {
        guard listingWorks else { return nil }
        lastListing = now
        let storageOperation: PTPOperationCode = session.deviceInfo.supports(.getStorageIDs) || session.dialect != .canonEOS
            ? .getStorageIDs : .canonEOSGetStorageIDs
        let storages = try session.call(storageOperation, dataIn: .collect(limit: CameraSession.collectLimit))
        guard storages.code.isOK, session.deviceInfo.supports(.getObjectHandles) else {
            listingWorks = false
            context.report(.info("\(session.name) does not list its files (\(storages.code)); relay relies on its events alone"))
            return nil
        }
        var handles: [UInt32] = []
        for storage in try decodeArray(storages.data, what: "storage list") {
            let reply = try session.call(.getObjectHandles, [storage, 0, 0], dataIn: .collect(limit: CameraSession.collectLimit))
            // A card slot that is empty or not ready answers an error; the other slots still count.
            guard reply.code.isOK else { continue }
            handles += try decodeArray(reply.data, what: "object list")
        }
        return handles
    }

    /// Lists the camera again and queues what no event announced (a missed event).
    private func crossCheck() throws(PTPIPError) {
        guard let handles = try list() else { return }
        let present = Set(handles)
        known = known.filter { present.contains($0.key) }
        let queued = Set(backlog)
        backlog += handles.filter { known[$0] == nil && !queued.contains($0) }
    }

    private func decodeArray(_ data: [UInt8]?, what: String) throws(PTPIPError) -> [UInt32] {
        var reader = PTPDataReader(data ?? [])
        do {
            return try reader.readArrayU32()
        } catch {
            throw .protocolViolation(peer: session.address, detail: "unreadable \(what): \(error)")
        }
    }

    // MARK: - Downloading

    private func download(_ candidate: Candidate) throws(PTPIPError) {
        let object = candidate.object
        let name = object.info.filename
        var identity = object.photoIdentity(cameraSerial: memory.serial, detectedAt: candidate.detectedAt)
        identity.timerShot = candidate.shot
        let id = identity.stableID
        if context.spool.contains(id: id) { return }
        let incoming: IncomingPhoto
        if let partial = memory.partials[id] {
            incoming = partial
        } else {
            do {
                incoming = try context.spool.beginIngest(identity)
            } catch {
                return pauseDownloads(candidate, because: error)
            }
        }
        memory.partials[id] = incoming
        // An idle upload worker may start sending it now, alongside the download (cut-through).
        context.spool.offer(incoming)
        let resumedAt = incoming.byteCount
        if resumedAt > 0 {
            context.report(.info("resuming \(name) at \(ByteCountText.format(resumedAt)) of \(ByteCountText.format(identity.bytes))"))
        }
        let transfer = ObjectDownload(session: session, object: object, incoming: incoming,
                                      chunkSize: context.options.chunkSize)
        do {
            try transfer.run { () throws(PTPIPError) in
                if context.stop.isStopped { throw .interrupted }
                try fireDueShot()
                commitFlushed(wait: false)
            }
        } catch {
            context.spool.withdraw(incoming)
            switch error {
            case .camera(let error):
                if !transfer.resumable {
                    memory.partials[id] = nil
                    context.spool.discard(incoming)
                }
                if case .interrupted = error, session.client.isIdle {
                    // Stopping between two chunks: the session can still be closed cleanly.
                    downloads.insert(candidate, at: 0)
                    return
                }
                throw error
            case .spool(let error):
                memory.partials[id] = nil
                context.spool.discard(incoming)
                return pauseDownloads(candidate, because: error)
            }
        }
        memory.partials[id] = nil
        // With more to download, the disk flushes this photo while the next one downloads, and
        // it is committed between two chunks of that one. Not when a worker is uploading it (its
        // last byte waits for the commit), nor a Canon capture in camera memory (it waits for
        // TransferComplete).
        commitFlushed(wait: true)
        let downloaded = Downloaded(candidate: candidate, incoming: incoming)
        let moreToDownload = !downloads.isEmpty || !announced.isEmpty || !backlog.isEmpty
        if moreToDownload && !object.needsTransferComplete && !context.spool.isBeingUploaded(incoming) {
            // No worker may claim it now and wait on a commit that is put off: it is queued then.
            context.spool.withdraw(incoming)
            incoming.flushInBackground()
            flushing = downloaded
            return
        }
        if commit(downloaded), object.needsTransferComplete { try releaseFromCameraMemory(object) }
    }

    /// Commits the photo whose flush runs in the background, if that has ended or `wait` is set.
    private func commitFlushed(wait: Bool) {
        guard let downloaded = flushing, wait || downloaded.incoming.isFlushed else { return }
        flushing = nil
        commit(downloaded)
    }

    /// Commits a downloaded photo to the spool, recording it as taken; false when the spool could
    /// not take it (it stays on the card and downloads pause).
    @discardableResult
    private func commit(_ downloaded: Downloaded) -> Bool {
        let object = downloaded.candidate.object
        let name = object.info.filename
        let entry: SpoolEntry
        do {
            entry = try context.spool.commit(downloaded.incoming) { [memory] entry in
                do {
                    try memory.seen.record(object.identityKey, file: name)
                } catch {
                    memory.unrecorded.append((object.identityKey, name))
                }
            }
        } catch {
            pauseDownloads(downloaded.candidate, because: error)
            return false
        }
        context.report(.spooled(entry))
        return true
    }

    /// The spool could not take the photo (a full disk): it stays on the card, downloads pause.
    private func pauseDownloads(_ candidate: Candidate, because error: SpoolError) {
        downloads.insert(candidate, at: 0)
        downloadsPausedUntil = now + Self.spoolRetryDelay
        context.report(.problem("\(candidate.object.info.filename) stays on the camera for now: \(error)"))
    }

    /// Canon keeps a capture made to camera memory until TransferComplete.
    private func releaseFromCameraMemory(_ object: CameraObject) throws(PTPIPError) {
        _ = try session.call(.canonEOSTransferComplete, [object.handle])
    }

    // MARK: - Stopping

    /// The dialect's stop sequence, CloseSession, then the sockets; each operation is bounded
    /// so the whole stop stays within about two seconds. A connection left mid-transaction (the
    /// stop cut a transfer) is just closed.
    private func stopCleanly() {
        let client = session.client
        client.interrupt = nil
        defer { client.close() }
        guard client.isIdle else {
            context.report(.info("\(session.name): stopped in the middle of a transfer; the connection was closed"))
            return
        }
        do {
            try events.stop(session, timeout: Self.stopOperationTimeout)
            _ = try client.transaction(.closeSession, timeout: Self.stopOperationTimeout)
            context.report(.info("\(session.name): session closed"))
        } catch {
            context.report(.info("\(session.name): the clean stop was cut short (\(error)); the connection was closed"))
        }
    }
}
