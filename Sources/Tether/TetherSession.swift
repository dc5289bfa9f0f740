import Foundation
import PTPIP
import PTPWire
import RelayCore
import RunEvents
import Spool

/// Serves one connected camera until relay stops or the connection fails: learns of new files
/// (the dialect's events, and a periodic listing that catches a missed event and what was shot
/// while relay was away), decides about each, and downloads those it takes into the spool
/// (TetherSession+Download.swift).
///
/// Work is done in small steps with the camera polled between them, downloads first, so that a
/// new shot is noticed within a poll interval even while a backlog is worked through. A session
/// ends by throwing the camera's error (the source reconnects) or, when relay stops, by returning
/// after a clean stop. One object's error is that object's problem: it is retried for a while or
/// set aside until the next listing, and the session goes on. The session names no vendor:
/// what differs between bodies is its dialect's.
final class TetherSession {
    typealias Context = SessionContext<CameraSource.Options>

    struct Candidate {
        var object: CameraObject
        var detectedAt: Date
        /// The timed-capture shot that made it.
        var shot: Int?
        /// Not before this time (a retry after the camera refused the transfer).
        var notBefore: TimeInterval = 0
        /// When the camera first refused it, for the retry budget.
        var firstRefusal: TimeInterval?
        /// The body asked for it to be transferred (its transfer button) before it was taken.
        var requested = false
    }

    /// An object whose description the camera refused for now (Nikon's GeneralError right after a
    /// shot): asked again until `giveUpAt`.
    struct PendingDescription {
        var announcement: ObjectAnnouncement
        var nextTry: TimeInterval
        var giveUpAt: TimeInterval
    }

    let session: CameraSession
    let memory: CameraMemory
    let context: Context
    var dialect: any CameraDialect
    /// What was decided per handle in this session.
    var known: [UInt32: TakeDecision] = [:]
    var announced: [ObjectAnnouncement] = []
    var backlog: [UInt32] = []
    var pendingDescriptions: [UInt32: PendingDescription] = [:]
    /// Objects the camera said changed (protected, rated, asked for), read again in turn.
    var changes: [ObjectChange] = []
    /// This session's photos in the spool, by handle, for those changes.
    var taken: [UInt32: TakenPhoto] = [:]
    /// Handles known to be photos on the card (listed, or announced as added there), not
    /// captures held in camera memory: a transfer request for one is the transfer button.
    var onCard: Set<UInt32> = []
    /// Photos the transfer button asked for before relay took them, by handle (true: the
    /// body waits for TransferComplete).
    var requested: [UInt32: Bool] = [:]
    /// Handles set aside after errors of their own, looked at again after the next listing.
    var setAside: Set<UInt32> = []
    var downloads: [Candidate] = []
    /// The last download, flushing to disk while the next one runs (committed by `commitFlushed`).
    var flushing: Downloaded?
    /// Downloads wait until then after a spool write failed (a full disk).
    var downloadsPausedUntil: TimeInterval = 0
    private var reportedWaitingForRoom = false
    var firstConnection: FirstConnectionRule
    var lastListing: TimeInterval = 0
    var listingWorks = true
    /// Handles on the card when the session started: shot before it, so they cannot be the
    /// photo of a trigger fired in it.
    var onCardAtConnect: Set<UInt32> = []
    /// How a timed capture fires this camera (nil: no capture, or the camera cannot be fired).
    var trigger: CaptureTrigger?
    /// Bracketing: the body's exposure mode and speeds, read when the session starts.
    var exposureControl: ExposureControl?
    /// The battery and card readings.
    private var power = CameraPower()

    /// ObjectInfos read per step while working through a listing.
    static let backlogBatch = 16
    /// Longest wait for events when there is nothing else to do.
    static let idleWait = 0.25
    /// How long one object's transient errors (GeneralError, DeviceBusy) are retried before it is
    /// set aside until the next listing (airnef retries Nikon's GetObjectInfo for 5 s).
    static let objectRetryBudget = 5.0
    /// Wait between two tries of such an object.
    static let objectRetryInterval = 0.25
    /// Time per operation of the clean stop.
    static let stopOperationTimeout = 0.4
    /// Waiting downloads that keep the first bytes read to identify their photo.
    static let headsKept = 8

    init(session: CameraSession, memory: CameraMemory, context: Context, firstConnection: Bool) {
        self.session = session
        self.memory = memory
        self.context = context
        dialect = DialectCatalog.dialect(for: session.deviceInfo)
        self.firstConnection = FirstConnectionRule(firstConnection: firstConnection)
    }

    var now: TimeInterval { ProcessInfo.processInfo.systemUptime }

    /// Serves the camera until relay stops (returns after a clean stop) or the camera fails
    /// (throws; whatever was downloaded so far stays in `memory.partials`).
    func run() throws(PTPIPError) {
        // A photo downloaded in full is committed whatever ends the session.
        defer { commitFlushed(wait: true) }
        // The dialect's start-up comes first: some bodies (Sony) stop answering when anything
        // else is asked before it.
        queue(memory.heldInCamera.values.sorted { $0.handle < $1.handle })
        queue(memory.announcedUnlisted.values.sorted { $0.handle < $1.handle })
        queue(try dialect.start(session))
        let listing = try list() ?? []
        backlog = listing
        onCardAtConnect = Set(listing)
        onCard = onCardAtConnect
        firstConnection.listed(
            listing, includeExisting: context.options.includeExisting,
            remembered: context.registry.camera(serial: memory.serial)?.firstListing)
        rememberFirstListing()
        if session.busyAnswers > 0 {
            context.report(.info("\(session.name) answered DeviceBusy \(session.busyAnswers) time(s) while starting; relay waited it out"))
        }
        context.report(
            .connected(
                CameraDescription(
                    model: session.deviceInfo.model, name: session.name, serial: session.serial,
                    address: "\(session.address)", via: dialect.description)))
        if let capture = context.options.capture {
            switch dialect.trigger(session) {
            case .success(let found):
                trigger = found
                capture.cameraReady(name: session.name, triggerProblem: nil)
                if capture.isBracketing {
                    exposureControl = try dialect.exposureControl(session)
                    if let problem = capture.exposureReady(exposureControl, camera: session.name) {
                        context.report(.warning(problem))
                    }
                }
            case .failure(let unavailable):
                capture.cameraReady(name: session.name, triggerProblem: unavailable.reason)
            }
        }
        do throws(PTPIPError) {
            while !context.stop.isStopped {
                try fireDueShot()
                let worked = try step()
                try dialect.keepAlive(session, now: now, idle: context.options.keepAliveSeconds)
                try reportPower()
                reportNotices()
                if let error = memory.recordPending() {
                    context.report(.warning("photos are spooled but could not be remembered as taken: \(error)"))
                }
                let untilShot = context.options.capture?.secondsUntilNextShot() ?? Self.idleWait
                let wait = worked || hasWork ? 0 : max(0, min(Self.idleWait, untilShot, secondsUntilRetry))
                announce(try dialect.poll(session, wait: wait))
            }
        } catch .interrupted {
            // Relay is stopping and a wait for the camera was given up: fall through to the stop.
        }
        stopCleanly()
    }

    /// Objects the camera announced after the start-up: shot during this session, so new even
    /// when the first connection's listing already held them (a shot right after connecting).
    private func announce(_ news: CameraNews) {
        noteChanged(news.changed)
        let announcements = transferRequests(in: news.added)
        if !announcements.isEmpty { power.photoTaken() }
        let existingBefore = firstConnection.existing?.count
        for announcement in announcements where firstConnection.announced(announcement.handle) {
            known[announcement.handle] = nil
        }
        if firstConnection.existing?.count != existingBefore { rememberFirstListing() }
        if !listingWorks && !dialect.reusesHandles {
            for announcement in announcements { memory.announcedUnlisted[announcement.handle] = announcement }
        }
        queue(announcements)
    }

    /// Queues announced objects; a capture held in camera memory is remembered until released,
    /// since a dropped connection loses its announcement.
    private func queue(_ announcements: [ObjectAnnouncement]) {
        for announcement in announcements where announcement.needsTransferComplete {
            memory.heldInCamera[announcement.handle] = announcement
        }
        announced += announcements
    }

    /// The battery and card, when a reading is due and shows a change.
    private func reportPower() throws(PTPIPError) {
        for change in try power.update(session, now: now, storageReadable: dialect.storageListing(session) != nil) {
            context.report(change.event)
        }
    }

    private func reportNotices() {
        for notice in session.notices { context.report(.warning(notice)) }
        session.notices.removeAll()
    }

    /// Whether something is ready to be done without waiting for the camera.
    var hasWork: Bool {
        !announced.isEmpty || !changes.isEmpty || !backlog.isEmpty || (!downloads.isEmpty && downloadReady)
            || duePendingDescription != nil
    }

    /// Seconds until an object's retry falls due (a long time when none waits).
    private var secondsUntilRetry: Double {
        let times = pendingDescriptions.values.map(\.nextTry) + downloads.map(\.notBefore).filter { $0 > now }
        return max(0, (times.min() ?? .infinity) - now)
    }

    private var duePendingDescription: UInt32? {
        pendingDescriptions.first { $0.value.nextTry <= now }?.key
    }

    /// One unit of work: a download, an announced object, or a batch of the listing. Returns
    /// whether it did anything.
    private func step() throws(PTPIPError) -> Bool {
        commitFlushed(wait: !downloadReady)
        if !changes.isEmpty {
            // A few small reads, before a backlog of downloads: the photographer waits for it.
            try readChange(changes.removeFirst())
            return true
        }
        if !downloads.isEmpty {
            if downloadReady {
                reportedWaitingForRoom = false
                try download(downloads.removeFirst())
                return true
            }
            if now >= downloadsPausedUntil && !reportedWaitingForRoom && !spoolHasRoom {
                reportedWaitingForRoom = true
                context.report(.spoolFull(waiting: downloads.count))
            }
        }
        if !announced.isEmpty {
            try examine(announced.removeFirst())
            return true
        }
        if let handle = duePendingDescription, let pending = pendingDescriptions.removeValue(forKey: handle) {
            try examine(pending.announcement, retryingUntil: pending.giveUpAt)
            return true
        }
        if !backlog.isEmpty {
            for handle in backlog.prefix(Self.backlogBatch) { try examine(ObjectAnnouncement(handle: handle)) }
            backlog.removeFirst(min(Self.backlogBatch, backlog.count))
            return true
        }
        finishFirstConnection()
        memory.sumUpDeclined(on: session.name, report: context.report)
        if now - lastListing >= context.options.crossCheckInterval {
            try crossCheck()
        }
        return false
    }

    // MARK: - Deciding

    /// Learns what the announced object is and decides about it. `retryingUntil` is set when
    /// this is a retry of an object whose description the camera refused for now.
    private func examine(_ announcement: ObjectAnnouncement, retryingUntil: TimeInterval? = nil) throws(PTPIPError) {
        let handle = announcement.handle
        guard known[handle] == nil, !setAside.contains(handle), pendingDescriptions[handle] == nil || retryingUntil != nil else {
            return
        }
        if !announcement.needsTransferComplete { onCard.insert(handle) }
        var object: CameraObject
        if let described = announcement.described {
            object = CameraObject(
                handle: handle, info: described, needsTransferComplete: announcement.needsTransferComplete,
                namedByRelay: announcement.namedByRelay)
        } else {
            guard let read = try describe(announcement, retryingUntil: retryingUntil) else { return }
            object = read
        }
        if object.namedByRelay && !object.info.isFolder { try identify(&object) }
        try decide(object)
    }

    /// Leaves an object alone until the next listing; the session goes on.
    func setAside(_ handle: UInt32, because reason: String) {
        setAside.insert(handle)
        context.report(
            .warning(
                "object \(String(handle, radix: 16)) on \(session.name) is set aside: \(reason); "
                    + "relay tries it again at the next listing of the card"))
    }

    private func decide(_ object: CameraObject) throws(PTPIPError) {
        var object = object
        let handle = object.handle
        let info = object.info
        let key = object.identityKey
        let onCardAtConnect = onCardAtConnect.contains(handle)
        let seenByIdentity = memory.wasSeen(key)
        let rewritten = !seenByIdentity && object.rewriteKey.map(memory.wasSeen) == true
        // The transfer button on a photo left on the card at the first connection (recorded as
        // seen then, never taken): the photographer asks for it.
        let asked = requested[handle] != nil && firstConnection.isExisting(handle)
        let decision = TakeDecision.decide(
            object,
            seen: !asked && (seenByIdentity || rewritten || (onCardAtConnect && object.handleKeys.contains(where: memory.wasSeen))),
            existing: firstConnection.isExisting(handle) && !asked,
            includeRAW: context.options.includeRAW)
        known[handle] = decision
        if decision != .take { memory.announcedUnlisted[handle] = nil }
        switch decision {
        case .take:
            // A long wait for the download does not hold every waiting photo's first bytes.
            if downloads.count >= Self.headsKept { object.head = nil }
            var candidate = Candidate(object: object, detectedAt: Date(), shot: shotConfirmed(by: object, willUpload: true))
            if let awaitsCompletion = requested.removeValue(forKey: handle) {
                candidate.requested = true
                if awaitsCompletion { candidate.object.needsTransferComplete = true }
            }
            downloads.append(candidate)
            context.report(.announced(fileName: info.filename, bytes: object.expectedBytes))
            return
        case .existing:
            firstConnection.noteExisting(handle, key: key, file: info.filename)
        case .skipRAW, .skipOther:
            if decision == .skipRAW { _ = shotConfirmed(by: object, willUpload: false) }
            if memory.skippedKeys.insert(key).inserted {
                let kind = decision == .skipRAW ? "RAW, kept on the card (--include-raw takes RAW files too)" : "not a photo relay uploads"
                context.report(.skipped(fileName: info.filename, reason: kind))
            }
            try release(object, downloaded: false)
        case .alreadyTaken:
            if rewritten {
                try noteRewritten(object)
            } else if seenByIdentity {
                try noteTakenBefore(object)
            }
            let matched = seenByIdentity || rewritten ? object.identityText : object.handleKeyText
            memory.decline(
                AlreadyTaken(fileName: info.filename, matched: matched, atStart: onCardAtConnect), key: key, report: context.report)
            try release(object, downloaded: false)
        case .folder:
            break
        }
        if dialect.reusesHandles { known[handle] = nil }
    }

    /// Lets the camera go of an object relay is done with, downloaded or not (a capture held in
    /// camera memory). A camera that answers with an error is told again by the next connection;
    /// a connection that fails ends the session.
    func release(_ object: CameraObject, downloaded: Bool) throws(PTPIPError) {
        do {
            try dialect.release(object, downloaded: downloaded, session: session)
            memory.heldInCamera[object.handle] = nil
        } catch .operationFailed(_, _, let response) {
            context.report(.warning("\(session.name) did not take the release of \(object.info.filename): it answered \(response)"))
        }
    }

    // MARK: - Stopping

    /// The dialect's stop sequence, CloseSession, then the sockets; each operation is bounded
    /// so the whole stop stays within about two seconds. A connection left mid-transaction (the
    /// stop cut a transfer) is just closed.
    private func stopCleanly() {
        let client = session.client
        client.interrupt = nil
        var clean = false
        defer { if clean { client.closeGracefully() } else { client.close() } }
        guard client.isIdle else {
            context.report(.info("\(session.name): stopped in the middle of a transfer; the connection was closed"))
            return
        }
        do {
            try dialect.stop(session, timeout: Self.stopOperationTimeout)
            _ = try client.transaction(.closeSession, timeout: Self.stopOperationTimeout)
            clean = true
            context.report(.info("\(session.name): session closed"))
        } catch {
            context.report(.info("\(session.name): the clean stop was cut short (\(error)); the connection was closed"))
        }
    }
}
