import Foundation
import RelayCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How much the spool may hold before the tether has to wait (the photo stays on the camera).
public struct SpoolLimits: Sendable, Equatable {
    public var maxPhotos: Int
    public var maxBytes: Int64

    public init(maxPhotos: Int = 1000, maxBytes: Int64 = 4_000_000_000) {
        self.maxPhotos = maxPhotos
        self.maxBytes = maxBytes
    }
}

/// The durable, bounded queue between the tether and the uploader.
///
/// On disk: `<id>.jpg` with its `<id>.json` sidecar (queued), `<id>.rendition.jpg` (its gallery
/// copy, when the run makes one), `failed/` (permanent failures), `.incoming/` (partial writes,
/// discarded on start). A photo becomes part of the spool only when
/// its fully written, fsynced file is renamed in, after its sidecar. One `Spool` owns a folder at
/// a time (an flock on `.lock`). What happens to each photo is decided by its ``PhotoLedger``, a
/// plain value; the spool is the shell around it: files, fsync, sidecars, recovery, and one
/// condition lock, on which the tether waits for room and the workers wait for work.
///
/// `@unchecked Sendable`: `ledger`, the cut-through offers and `closed` are touched only under
/// `condition`; `problems` and `adoptedAtStart` are written only during init; the rest is `let`.
public final class Spool: @unchecked Sendable {
    public let directory: URL
    public let limits: SpoolLimits
    /// The rendition spec (``RenditionSpec/key``) every photo is sent as, nil for originals.
    /// A queued photo without that rendition is not handed to the uploader until it has one.
    public let renditionKey: String?
    /// The run's destinations when it delivers to several (nil: one destination, and the queue
    /// alone decides when a photo is done).
    public let destinations: SpoolDestinations?
    public var failedDirectory: URL { directory.appendingPathComponent("failed", isDirectory: true) }
    var incomingDirectory: URL { directory.appendingPathComponent(".incoming", isDirectory: true) }

    let condition = NSCondition()
    /// Where every photo stands; under `condition`.
    var ledger: PhotoLedger
    /// Photos still downloading that an idle worker may start uploading, oldest first.
    var offered: [GrowingPhoto] = []
    /// Offered photos a worker is uploading, by id.
    var cutThrough: [String: GrowingPhoto] = [:]
    /// Photos still downloading whose rendition may be started (in a run that sends renditions),
    /// oldest first; and those whose rendition is being made as they arrive, by id.
    var renditionOffers: [GrowingPhoto] = []
    var renderingOffers: [String: GrowingPhoto] = [:]
    /// Renditions being written as their photo downloads, offered for upload (in `offered`
    /// until a worker takes one, then in `cutThrough`), by id.
    var renditionUploads: [String: GrowingPhoto] = [:]
    /// Serializes writes of `.sequence`, so that a slower writer cannot put it back.
    private let sequenceWrite = NSLock()
    var closed = false
    private let lockFD: Int32
    /// Sidecars that could not be read at start; left untouched and reported by `relay status`.
    public internal(set) var problems: [String] = []
    /// Serializes the sidecar writes of one photo (a photo's id picks its lock), so that a
    /// writer holding an older copy of the entry cannot put back an older progress.
    let sidecarWrites = (0..<16).map { _ in NSLock() }
    /// Photos found at start whose sidecar (from an older relay) recorded no destinations: they
    /// took this run's.
    public internal(set) var adoptedAtStart = 0

    /// Opens (creating if needed) the spool in `directory`, finishing what a crash interrupted:
    /// partial writes are discarded, delivered photos removed, the rest queued in arrival order
    /// (those without a rendition for `renditionKey` wait for one).
    public init(
        directory: URL, limits: SpoolLimits = SpoolLimits(), renditionKey: String? = nil, destinations: SpoolDestinations? = nil
    ) throws(SpoolError) {
        self.directory = directory
        self.limits = limits
        self.renditionKey = renditionKey
        self.destinations = destinations
        ledger = PhotoLedger(destinations: destinations, makesRenditions: renditionKey != nil)
        for folder in [directory, directory.appendingPathComponent("failed"), directory.appendingPathComponent(".incoming")] {
            do { try StateDirectory.create(folder) } catch { throw .state(error) }
        }
        lockFD = try Self.takeLock(directory)
        try recover()
    }

    deinit {
        close()
        Foundation.close(lockFD)
    }

    // MARK: - Tether side

    /// Whether a photo with this id is already queued, uploading or failed (not delivered).
    public func contains(id: String) -> Bool {
        condition.withLock { ledger.contains(id) }
    }

    /// The content keys of the photos queued, in flight or waiting for a destination.
    public func contentKeys() -> [String] {
        condition.withLock { ledger.contentKeys }
    }

    /// Whether a photo with this content key is queued, in flight or waiting for a destination.
    public func contains(contentKey: String) -> Bool {
        condition.withLock { ledger.containsContent(contentKey) }
    }

    /// Blocks until a photo of `bytes` fits within the limits; false when the spool was closed.
    /// An empty spool always has room, so one photo larger than `maxBytes` can still pass.
    public func waitForRoom(bytes: Int64) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !closed && !ledger.hasRoom(forBytes: bytes, limits: limits) { condition.wait() }
        return !closed
    }

    /// Closed: no more work is handed out.
    public var isClosed: Bool { condition.withLock { closed } }

    /// Whether the spool is at its limits right now (for the progress line).
    public var isFull: Bool {
        condition.withLock { !ledger.hasRoom(forBytes: 1, limits: limits) }
    }

    /// The bytes of every photo the spool holds (a source that keeps files of its own outside
    /// the spool, such as the FTP receiver's cut-off uploads, counts them against the same limit).
    public var heldBytes: Int64 {
        condition.withLock { ledger.heldBytes }
    }

    /// Whether a photo of `bytes` fits within the limits right now (a source that must keep
    /// serving its camera asks instead of waiting).
    public func hasRoom(forBytes bytes: Int64) -> Bool {
        condition.withLock { ledger.hasRoom(forBytes: bytes, limits: limits) }
    }

    // MARK: - Uploader side

    /// Blocks until a photo is due for upload and hands it to the caller (marked in flight, its
    /// attempt counted in the sidecar); nil once the spool is closed.
    public func claimNext() -> SpoolEntry? {
        guard case .spooled(let entry) = claimNextWork(cutThrough: false) else { return nil }
        return entry
    }

    /// What a worker is given to upload.
    public enum Work: Sendable {
        /// A spooled photo, in flight for the caller.
        case spooled(SpoolEntry)
        /// A photo still downloading (cut-through): after a 2xx it is committed and in flight
        /// (``GrowingPhoto/ended``); otherwise call ``settleCutThrough(_:retryDelay:)``.
        case growing(GrowingPhoto)
    }

    /// Blocks until there is work: a spooled photo that is due (oldest first), or, when none is
    /// and `cutThrough` is set, a photo still downloading (with `unsized`, also one whose size
    /// is not known before its end). Nil once the spool is closed.
    public func claimNextWork(cutThrough acceptGrowing: Bool, unsized: Bool = true) -> Work? {
        condition.lock()
        var claimed: SpoolEntry?
        var growing: GrowingPhoto?
        while claimed == nil && growing == nil && !closed {
            offered.removeAll { $0.isAbandoned }
            if let entry = ledger.claimQueued(at: Date(), pid: getpid()) {
                claimed = entry
            } else if acceptGrowing, let index = offered.firstIndex(where: { unsized || $0.entry.bytes > 0 }) {
                growing = offered.remove(at: index)
            } else if let earliest = ledger.nextQueuedRetry {
                _ = condition.wait(until: earliest)
            } else {
                condition.wait()
            }
        }
        if let growing {
            cutThrough[growing.entry.id] = growing
            condition.unlock()
            return .growing(growing)
        }
        condition.unlock()
        guard let claimed else { return nil }
        try? saveSidecar(claimed)
        return .spooled(claimed)
    }

    /// The endpoint answered 2xx: mark the sidecar delivered, then remove photo and sidecar.
    /// After a crash a "delivered" sidecar is cleaned up, never re-sent; and when the sidecar
    /// cannot be written (disk full) the photo is removed all the same, since a sidecar without
    /// its photo is dropped on start: either way the photo is not sent twice.
    public func markDelivered(_ entry: SpoolEntry) throws(SpoolError) {
        if destinations != nil { return try settlePrimary(entry, .delivered, error: nil, statusCode: nil) }
        try removeDelivered(entry)
    }

    /// Marks the sidecar delivered, then removes photo, rendition and sidecar.
    func removeDelivered(_ entry: SpoolEntry) throws(SpoolError) {
        var done = entry
        done.state = .delivered
        done.inFlightSince = nil
        var failure: SpoolError?
        do { try saveSidecar(done) } catch { failure = Self.describe(error, at: sidecarURL(entry.id)) }
        unlink(photoURL(entry.id).path)
        unlink(renditionURL(entry.id).path)
        // The sidecar may be the last record of its number: it goes only once `.sequence` holds
        // it (if that write fails, a restart finds the delivered sidecar and cleans it up).
        if persistSequence(atLeast: entry.sequence) { unlink(sidecarURL(entry.id).path) }
        // Names that come back after a cut are cleaned up at start (the sidecar says delivered).
        do { try Durable.syncFolder(directory.path) } catch { failure = failure ?? Self.describe(error, at: directory) }
        finish(entry.id)
        if let failure { throw failure }
    }

    /// A retryable failure: back in the queue, not before `delay` seconds from now.
    public func requeue(_ entry: SpoolEntry, after delay: TimeInterval, error: String?, statusCode: Int?) {
        // The sidecar is written before the photo is back in the queue, so that a worker that
        // claims it next cannot have its own write put back by this one.
        let again = condition.withLock { ledger.recordRetry(entry, error: error, statusCode: statusCode) }
        try? saveSidecar(again)
        condition.withLock {
            ledger.requeue(again, notBefore: Date().addingTimeInterval(max(0, delay)))
            condition.broadcast()
        }
    }

    /// A permanent failure: moved to `failed/` with the answer, out of the way of the rest.
    public func moveToFailed(_ entry: SpoolEntry, error: String, statusCode: Int?) throws(SpoolError) {
        if destinations != nil { return try settlePrimary(entry, .failed, error: error, statusCode: statusCode) }
        try storeFailed(entry, error: error, statusCode: statusCode)
    }

    /// Moves photo and sidecar to failed/, with the answer.
    func storeFailed(_ entry: SpoolEntry, error: String, statusCode: Int?) throws(SpoolError) {
        var failed = entry
        failed.state = .failed
        failed.inFlightSince = nil
        failed.uploaderPID = nil
        failed.lastError = error
        failed.lastStatusCode = statusCode
        let failedPhoto = failedDirectory.appendingPathComponent("\(entry.id).jpg")
        // A failed/ folder may be emptied by hand: its numbers must not come back.
        persistSequence(atLeast: entry.sequence)
        do {
            try JSONStateFile<SpoolEntry>(url: failedDirectory.appendingPathComponent("\(entry.id).json")).save(failed)
            // A photo that vanished from the spool is still recorded as failed, not retried forever.
            guard rename(photoURL(entry.id).path, failedPhoto.path) == 0 || errno == ENOENT else { throw Errno.current("rename") }
            // A retried photo gets its rendition made again.
            unlink(renditionURL(entry.id).path)
            unlink(sidecarURL(entry.id).path)
            try Durable.syncFolder(failedDirectory.path)
            try Durable.syncFolder(directory.path)
        } catch {
            throw Self.describe(error, at: failedPhoto)
        }
        condition.withLock { ledger.markFailed(entry.id) }
        finish(entry.id)
    }

    /// Stops handing out work and wakes every waiter; in-flight photos may still be settled.
    public func close() {
        condition.withLock {
            closed = true
            condition.broadcast()
        }
    }

    /// Queued, in-flight and failed photos right now.
    public func snapshot() -> SpoolSnapshot {
        let held = condition.withLock { ledger.held }
        return SpoolSnapshot(
            queued: held.queued, inFlight: held.inFlight, failed: Self.readEntries(in: failedDirectory).entries, problems: problems)
    }

    /// Where the photo of a queued or in-flight entry is.
    public func photoURL(for entry: SpoolEntry) -> URL { photoURL(entry.id) }

    /// What the upload of `entry` sends: its rendition once made, else the photo.
    public func uploadURL(for entry: SpoolEntry) -> URL {
        entry.sendsRendition ? renditionURL(entry.id) : photoURL(entry.id)
    }

    /// Counts for the progress line, without reading any file.
    public func counts() -> (queued: Int, inFlight: Int, failed: Int) {
        condition.withLock { ledger.counts }
    }

    // MARK: - Internals

    var sequenceFile: URL { directory.appendingPathComponent(".sequence") }
    func photoURL(_ id: String) -> URL { directory.appendingPathComponent("\(id).jpg") }
    func sidecarURL(_ id: String) -> URL { directory.appendingPathComponent("\(id).json") }
    func renditionURL(_ id: String) -> URL { directory.appendingPathComponent("\(id).rendition.jpg") }

    func makeEntry(_ identity: PhotoIdentity, sequence: Int, uploadName: String) -> SpoolEntry {
        SpoolEntry(
            id: identity.stableID, sequence: sequence, source: identity.source, cameraFileName: identity.fileName,
            uploadName: uploadName, bytes: identity.bytes, capturedAt: identity.capturedAt, spooledAt: Date(),
            idempotencyKey: identity.stableID, timerShot: identity.timerShot, contentKey: identity.contentKey,
            bracket: identity.bracket)
    }

    func finish(_ id: String) {
        condition.withLock {
            ledger.finish(id)
            condition.broadcast()
        }
    }

    /// Writes the sidecar of `entry`, with the photo's progress per destination as it is now.
    /// `onlyWhilePending`: for a write that may race with another destination finishing the photo
    /// (its settlement): skipped once the photo is being removed or is gone, so that a late write
    /// cannot bring back a sidecar of a photo that left the spool.
    func saveSidecar(_ entry: SpoolEntry, onlyWhilePending: Bool = false) throws(StateFileError) {
        guard destinations != nil else { return try JSONStateFile<SpoolEntry>(url: sidecarURL(entry.id)).save(entry) }
        let lock = sidecarWrites[Int(entry.id.utf8.reduce(0) { ($0 &* 31 &+ UInt($1)) } % UInt(sidecarWrites.count))]
        lock.lock()
        defer { lock.unlock() }
        let id = entry.id
        let (map, pending) = condition.withLock { (ledger.progress[id], ledger.isPending(id)) }
        if onlyWhilePending && !pending { return }
        var merged = entry
        if let map { merged.destinations = map }
        try JSONStateFile<SpoolEntry>(url: sidecarURL(id)).save(merged)
    }

    /// Makes `.sequence` at least `sequence` (and every number handed out so far) before the last
    /// record of it goes, so that numbers never repeat after a restart. Sidecars carry the
    /// sequence until then, so a commit (on the way from shutter to gallery) does not pay for
    /// this write, and while a queued or in-flight photo has a higher number, neither does a
    /// delivery. Returns false when the write failed.
    @discardableResult
    func persistSequence(atLeast sequence: Int) -> Bool {
        sequenceWrite.lock()
        defer { sequenceWrite.unlock() }
        guard let highest = condition.withLock({ ledger.sequenceToPersist(atLeast: sequence) }) else { return true }
        guard (try? AtomicFile.write(Data("\(highest)\n".utf8), to: sequenceFile)) != nil else { return false }
        condition.withLock { ledger.persisted(highest) }
        return true
    }

    private static func takeLock(_ directory: URL) throws(SpoolError) -> Int32 {
        let path = directory.appendingPathComponent(".lock").path
        let fd = open(path, O_RDWR | O_CREAT, 0o600)
        guard fd >= 0 else { throw .io(path: path, reason: Errno.current("open").description) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let holder =
                (try? String(contentsOfFile: path, encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
            Foundation.close(fd)
            throw .locked(path: directory.path, pid: holder.isEmpty ? "?" : holder)
        }
        ftruncate(fd, 0)
        let pid = Data("\(getpid())\n".utf8)
        try? AtomicFile.writeAll(fd, pid)
        return fd
    }

    static func describe(_ error: Error, at url: URL) -> SpoolError {
        if let errno = error as? Errno {
            return errno.isDiskFull ? .diskFull(path: url.path) : .io(path: url.path, reason: errno.description)
        }
        if let state = error as? StateFileError {
            if case .writeFailed(_, let reason) = state, reason.contains("No space left") { return .diskFull(path: url.path) }
            return .state(state)
        }
        if let spool = error as? SpoolError { return spool }
        return .io(path: url.path, reason: "\(error)")
    }
}
