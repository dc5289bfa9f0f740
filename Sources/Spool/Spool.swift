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

/// A file write of the spool that waits for the one before it (``Spool/writes``).
enum SpoolWrite: Hashable, Sendable {
    /// Writes of `.sequence`, so that a slower writer cannot put it back.
    case sequence
    /// The sidecar writes of one photo: each write takes the ledger's latest word in its turn,
    /// so a slower writer cannot put back an older one.
    case sidecar(id: String)
}

/// The durable, bounded queue between the tether and the uploader.
///
/// On disk: `<id>.jpg` with its `<id>.json` sidecar (queued), `<id>.<spec>.rendition.jpg` (a
/// smaller copy, one per spec its destinations take), `failed/` (permanent failures), `.incoming/` (partial writes,
/// discarded on start). A photo becomes part of the spool only when
/// its fully written, fsynced file is renamed in, after its sidecar. One `Spool` owns a folder at
/// a time (an flock on `.lock`). What happens to each photo is decided by its ``PhotoLedger``, a
/// plain value: the spool applies what happened to it under one lock (``apply(_:)``) and runs
/// what it decided outside that lock: files, fsyncs, sidecars, hand-overs. The tether waits on
/// the same lock for room, the workers for work, each until the ledger's next time or a change.
///
/// `@unchecked Sendable`: `problems` and `adoptedAtStart` are written only during init; the
/// ledger is in `state`; the rest is `let`.
public final class Spool: @unchecked Sendable {
    public let directory: URL
    public let limits: SpoolLimits
    /// The run's destinations (``SpoolDestinations/none``: the spool is looked after, not delivered from).
    public let destinations: SpoolDestinations
    /// Reads what a committed photo's file says of it (its rating, the camera that made it).
    let readHeader: (@Sendable (URL) -> HeaderFacts)?
    public var failedDirectory: URL { directory.appendingPathComponent("failed", isDirectory: true) }
    var incomingDirectory: URL { directory.appendingPathComponent(".incoming", isDirectory: true) }

    /// The ledger, and the photos being read as they download by the number of their offer.
    struct State: Sendable {
        var ledger: PhotoLedger
        var reading: [Int: GrowingPhoto] = [:]
        var nextOffer = 1
    }

    let state: LockedBox<State>
    /// Told after every change of the ledger (``onChange(_:)``).
    let observers = LockedBox<[@Sendable () -> Void]>([])
    /// Told of each photo that left the spool settled (``onFinished(_:)``).
    let finishedObservers = LockedBox<[@Sendable (SpoolEntry, PhotoDestinations.Settlement) -> Void]>([])
    /// Serializes the spool's file writes that must not overtake each other: `.sequence`'s, and
    /// each photo's sidecar writes (``SpoolWrite``). Each runs with no lock held: they fsync.
    let writes = OneAtATime<SpoolWrite>()
    private let lockFD: Int32
    /// Sidecars that could not be read at start; left untouched and reported by `relay status`.
    public internal(set) var problems: [String] = []
    /// Photos found at start whose sidecar (from an older relay) recorded no destinations: they
    /// took this run's.
    public internal(set) var adoptedAtStart = 0

    /// Opens (creating if needed) the spool in `directory`, finishing what a crash interrupted:
    /// partial writes are discarded, delivered photos removed, the rest queued in arrival order
    /// (those without the rendition a destination takes wait for it). Without `destinations` the
    /// spool is looked after (`relay retry`, `relay drop`, `relay status`), not delivered from.
    /// `readHeader` reads what a photo's file says of it as it is committed.
    public init(
        directory: URL, limits: SpoolLimits = SpoolLimits(), destinations: SpoolDestinations = .none,
        readHeader: (@Sendable (URL) -> HeaderFacts)? = nil
    ) throws(SpoolError) {
        self.directory = directory
        self.limits = limits
        self.destinations = destinations
        self.readHeader = readHeader
        state = LockedBox(State(ledger: PhotoLedger(destinations: destinations)))
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

    /// A read of the ledger, under the lock.
    func look<Result>(_ body: (PhotoLedger) -> Result) -> Result {
        state.withLockedValue { body($0.ledger) }
    }

    // MARK: - Tether side

    /// Whether a photo with this id is already queued, uploading or failed (not delivered).
    public func contains(id: String) -> Bool {
        look { $0.contains(id) }
    }

    /// The content keys of the photos in the spool.
    public func contentKeys() -> [String] {
        look(\.contentKeys)
    }

    /// Whether a photo with this content key is in the spool.
    public func contains(contentKey: String) -> Bool {
        look { $0.containsContent(contentKey) }
    }

    /// Blocks until a photo of `bytes` fits within the limits; false when the spool was closed.
    /// An empty spool always has room, so one photo larger than `maxBytes` can still pass.
    public func waitForRoom(bytes: Int64) -> Bool {
        state.wait { state in
            if state.ledger.closed { return .ready(false) }
            return state.ledger.hasRoom(forBytes: bytes, limits: limits) ? .ready(true) : .until(nil)
        }
    }

    /// Calls `body` after every change of what the spool holds or owes (a photo in, a leg
    /// settled, a decision applied): a thread that shows or judges the spool waits for this
    /// instead of looking at it on a clock. `body` runs on the changing thread: keep it short.
    public func onChange(_ body: @escaping @Sendable () -> Void) {
        observers.withLockedValue { $0.append(body) }
    }

    /// Calls `body` with each photo that leaves the spool settled, its legs as they ended (every
    /// destination has it or rejected it: `.delivered`; one refused it: `.refused`), once its
    /// files are dealt with: a source that acts when its photo is everywhere (an S3 inbox that
    /// deletes it) learns it here. `body` runs on the finishing thread: keep it short.
    public func onFinished(_ body: @escaping @Sendable (SpoolEntry, PhotoDestinations.Settlement) -> Void) {
        finishedObservers.withLockedValue { $0.append(body) }
    }

    /// Closed: no more work is handed out.
    public var isClosed: Bool { look(\.closed) }

    /// Whether the spool is at its limits right now (for the progress line).
    public var isFull: Bool {
        look { !$0.hasRoom(forBytes: 1, limits: limits) }
    }

    /// The bytes of every photo the spool holds (a source that keeps files of its own outside
    /// the spool, such as the FTP receiver's cut-off uploads, counts them against the same limit).
    public var heldBytes: Int64 {
        look(\.heldBytes)
    }

    /// Whether a photo of `bytes` fits within the limits right now (a source that must keep
    /// serving its camera asks instead of waiting).
    public func hasRoom(forBytes bytes: Int64) -> Bool {
        look { $0.hasRoom(forBytes: bytes, limits: limits) }
    }

    /// Stops handing out work and wakes every waiter; in-flight photos may still be settled.
    public func close() {
        apply(.close)
    }

    /// Queued, in-flight and failed photos right now.
    public func snapshot() -> SpoolSnapshot {
        let held = look(\.held)
        return SpoolSnapshot(
            queued: held.queued, inFlight: held.inFlight, failed: Self.readEntries(in: failedDirectory).entries, problems: problems)
    }

    /// Where the photo of a queued or in-flight entry is.
    public func photoURL(for entry: SpoolEntry) -> URL { photoURL(entry.id) }

    /// What the upload of `entry` (as a worker is handed it) sends: its destination's rendition
    /// once made, else the photo.
    public func uploadURL(for entry: SpoolEntry) -> URL {
        guard entry.sendsRendition, let spec = entry.rendition?.spec else { return photoURL(entry.id) }
        return renditionURL(entry.id, spec: spec)
    }

    /// The file that shows `entry` best when small: its smallest rendition made, else the photo.
    public func smallestPictureURL(for entry: SpoolEntry) -> URL {
        entry.smallestRendition.map { renditionURL(entry.id, spec: $0.spec) } ?? photoURL(entry.id)
    }

    /// The renditions of `entry` made so far (a page picks the smallest that is large enough).
    public func madeRenditionURLs(for entry: SpoolEntry) -> [URL] {
        (entry.renditions ?? [:]).values.filter { $0.bytes != nil }.map { renditionURL(entry.id, spec: $0.spec) }
    }

    /// Counts for the progress line, without reading any file.
    public func counts() -> (queued: Int, inFlight: Int, failed: Int) {
        look(\.counts)
    }

    // MARK: - Internals

    var sequenceFile: URL { directory.appendingPathComponent(".sequence") }
    func photoURL(_ id: String) -> URL { directory.appendingPathComponent("\(id).jpg") }
    func sidecarURL(_ id: String) -> URL { directory.appendingPathComponent("\(id).json") }
    /// `<id>.<spec>.rendition.jpg`: one file per spec a destination of the photo takes (an older
    /// relay's one rendition, spec "", is `<id>.rendition.jpg`).
    func renditionURL(_ id: String, spec: String) -> URL {
        directory.appendingPathComponent(spec.isEmpty ? "\(id)\(Self.renditionSuffix)" : "\(id).\(spec)\(Self.renditionSuffix)")
    }
    static let renditionSuffix = ".rendition.jpg"

    /// Every rendition file `entry` may have: the specs it records and those the run makes.
    func renditionURLs(_ entry: SpoolEntry) -> [URL] {
        Set((entry.renditions ?? [:]).keys).union(destinations.renditionKeys).map { renditionURL(entry.id, spec: $0) }
    }

    /// The specs of `entry` whose rendition file is in the spool.
    func renditionFiles(_ entry: SpoolEntry) -> Set<String> {
        Set((entry.renditions ?? [:]).keys.filter { FileManager.default.fileExists(atPath: renditionURL(entry.id, spec: $0).path) })
    }

    func makeEntry(_ identity: PhotoIdentity, sequence: Int, uploadName: String) -> SpoolEntry {
        var entry = SpoolEntry(
            id: identity.stableID, sequence: sequence, source: identity.source, cameraFileName: identity.fileName,
            uploadName: uploadName, bytes: identity.bytes, capturedAt: identity.capturedAt, spooledAt: Date(),
            idempotencyKey: identity.stableID, timerShot: identity.timerShot, contentKey: identity.contentKey,
            bracket: identity.bracket)
        entry.photographer = identity.photographer
        entry.note = identity.note
        return entry
    }

    /// Writes the sidecar of `id` as the ledger has it now; nothing once the photo is being
    /// finished or gone (a late write must not bring back the sidecar of a photo that left).
    func saveSidecar(_ id: String) throws(StateFileError) {
        try writingSidecar(of: id) { () throws(StateFileError) in
            guard let entry = look({ $0.sidecar(id) }) else { return }
            try JSONStateFile<SpoolEntry>(url: sidecarURL(id)).save(entry)
        }
    }

    /// Runs `body` in the sidecar turn of `id`: a write that read the ledger before the photo
    /// began finishing lands before the finishing writes, never after them.
    func writingSidecar<Result, Failure: Error>(of id: String, _ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        try writes.run(.sidecar(id: id), body)
    }

    /// Makes `.sequence` at least `sequence` (and every number handed out so far) before the last
    /// record of it goes, so that numbers never repeat after a restart. Sidecars carry the
    /// sequence until then, so a commit (on the way from shutter to gallery) does not pay for
    /// this write, and while a photo in the spool has a higher number, neither does a delivery.
    /// Returns false when the write failed.
    @discardableResult
    func persistSequence(atLeast sequence: Int) -> Bool {
        writes.run(.sequence) { () -> Bool in
            guard let highest = look({ $0.sequenceToPersist(atLeast: sequence) }) else { return true }
            guard (try? AtomicFile.write(Data("\(highest)\n".utf8), to: sequenceFile)) != nil else { return false }
            apply(.persisted(highest))
            return true
        }
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
