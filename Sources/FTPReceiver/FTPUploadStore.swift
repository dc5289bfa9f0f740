import FTPWire
import Foundation
import Intake
import RelayCore
import Spool

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Uploads on their way into the spool, shared by all control sessions.
///
/// An upload is written to `RELAY_HOME/ftp/partial/USER/…` as it arrives, and is the spool's
/// incoming photo meanwhile (so that it can be uploaded as it arrives). Only a complete one is
/// committed (fsynced, renamed into the spool, recorded as taken) before the camera is told 226;
/// one cut off stays there, for a REST or APPE resume (also after relay restarts), until it has
/// been untouched for `partialKeepSeconds`. A photo sent again is recognised by user, path, size
/// and SHA-256 (its content key): a seen-log keeps that key once the photo is spooled, and the
/// spooled photo's sidecar keeps it too, so a retry after a lost 226 (even across a crash) is
/// answered 226 and not delivered twice.
///
/// A path being written is claimed by one session at a time, and only that session touches its
/// partial file.
final class FTPUploadStore: Sendable {
    /// What became of a finished upload.
    enum Outcome {
        case spooled(SpoolEntry)
        /// The same photo (user, path, size, content) was received before: `matched` says how.
        case duplicate(matched: String)
        /// A JPEG whose image, or a RAW whose data, is cut short (what is cut): kept as a partial
        /// upload.
        case incomplete(String)
        /// The spool is at its limits; the complete upload is kept, the camera asked to retry.
        case spoolFull
        case failed(SpoolError)
    }

    /// What a LIST or SIZE sees of a file.
    struct FileInfo {
        var bytes: Int64
        var modified: Date
        var complete: Bool
    }

    let folder: URL
    let spool: Spool
    let seen: SeenLog
    /// The sessions' shared maps; a claim waits on them for a stale upload to let go.
    private let state = LockedBox(Claims())

    private struct Claims: Sendable {
        var claimed: Set<String> = []
        /// How to cut each upload in progress, by claimed key (a rename's claim has none).
        var cutters: [String: @Sendable () -> Void] = [:]
        /// Files received completely this run, per user, by path (for LIST, SIZE, MDTM).
        var received: [String: [FTPVirtualPath: FileInfo]] = [:]
    }

    init(home: RelayHome, spool: Spool) throws(FTPReceiverError) {
        folder = home.root.appendingPathComponent("ftp/partial", isDirectory: true)
        self.spool = spool
        do {
            try StateDirectory.create(folder)
            seen = try SeenLog(url: SeenLog.url(in: home, source: "ftp", label: "ftp"), tracksFiles: true)
            // A photo spooled just before relay died may not have reached the seen-log.
            try seen.record(
                spool.contentKeys().map { key in
                    let parts = key.split(separator: "|", omittingEmptySubsequences: false)
                    return (key, parts.count >= 2 ? Self.seenFile(String(parts[0]), String(parts[1])) : key)
                })
        } catch {
            throw .state(path: folder.path, reason: error.description)
        }
    }

    // MARK: - Claims (one writer per path)

    /// How an upload got its path.
    enum UploadClaim {
        case free
        /// Another connection's upload of the path was cut for this one.
        case tookOver
    }

    /// Claims `path` for an upload. Another connection's upload of the same path (same account)
    /// is stale: a camera sends a file again only once it gave up on its first try, typically
    /// after its Wi-Fi froze, which leaves that connection dead without a word. That upload is cut
    /// (its `cut`), and the claim waits up to `wait` seconds for it to let go; what it received
    /// stays for a REST resume. `cut` is how a later upload cuts this one. Nil when the path stays
    /// held: a rename in progress, or an upload that did not let go in time.
    func claimUpload(
        user: String, path: FTPVirtualPath, wait: TimeInterval = 10,
        cut: @escaping @Sendable () -> Void
    ) -> UploadClaim? {
        let key = Self.key(user, path)
        let deadline = Date().addingTimeInterval(wait)
        var tookOver = false
        return state.wait { state in
            guard state.claimed.contains(key) else {
                state.claimed.insert(key)
                state.cutters[key] = cut
                return .ready(tookOver ? .tookOver : .free)
            }
            if let stale = state.cutters.removeValue(forKey: key) {
                tookOver = true
                stale()
            } else if !tookOver {
                return .ready(nil)
            }
            return Date() >= deadline ? .ready(nil) : .until(deadline)
        }
    }

    /// Claims `path` for a short step (a skipped file's record, a rename) that nothing cuts;
    /// false when it is held.
    func claim(user: String, path: FTPVirtualPath) -> Bool {
        state.withLockedValue { $0.claimed.insert(Self.key(user, path)).inserted }
    }

    func release(user: String, path: FTPVirtualPath) {
        let key = Self.key(user, path)
        state.change { state in
            state.claimed.remove(key)
            state.cutters[key] = nil
        }
    }

    // MARK: - Partial files

    /// Where the upload of `path` is written; its virtual path is kept beside it (`.path`) so a
    /// restart can list it.
    func partialURL(user: String, path: FTPVirtualPath) -> URL {
        userFolder(user).appendingPathComponent(StableHash.hex128(path.description) + ".part")
    }

    /// Opens the partial file of a claimed path for writing at `offset` (nil: start afresh,
    /// `Int64.max`: append at its end). Returns the descriptor and where writing starts.
    func openPartial(user: String, path: FTPVirtualPath, offset: Int64?) throws(OpenFailure) -> (fd: Int32, start: Int64) {
        let url = partialURL(user: user, path: path)
        do { try StateDirectory.create(url.deletingLastPathComponent()) } catch { throw .io(error.description) }
        let fd = open(url.path, O_WRONLY | O_CREAT | O_CLOEXEC | (offset == nil ? O_TRUNC : 0), 0o600)
        guard fd >= 0 else { throw .io(Errno.current("open \(url.lastPathComponent)").description) }
        var info = stat()
        fstat(fd, &info)
        let size = Int64(info.st_size)
        var start = offset ?? 0
        if start == Int64.max { start = size }
        guard start <= size else {
            close(fd)
            throw .beyondEnd(have: size)
        }
        guard ftruncate(fd, off_t(start)) == 0, lseek(fd, off_t(start), SEEK_SET) >= 0 else {
            let failure = Errno.current("truncate")
            close(fd)
            throw .io(failure.description)
        }
        Self.writePathFile(path.description, for: url)
        return (fd, start)
    }

    /// Why a partial file cannot be opened where the client asked.
    enum OpenFailure: Error {
        /// REST beyond the bytes relay has.
        case beyondEnd(have: Int64)
        case io(String)
    }

    func discardPartial(user: String, path: FTPVirtualPath) {
        let url = partialURL(user: user, path: path)
        unlink(url.path)
        unlink(url.deletingPathExtension().appendingPathExtension("path").path)
    }

    /// Removes partial uploads untouched for `age` seconds and not being written.
    func discardPartials(olderThan age: TimeInterval) -> [String] {
        let cutoff = Date().addingTimeInterval(-age)
        return allPartials().filter { drop($0, ifUntouchedSince: cutoff) }.map(\.virtual)
    }

    /// Makes room for the upload of `path`, `bytes` long so far: the spool's photos, every
    /// partial upload and this one stay within the spool's byte limit (`--spool-max-bytes`).
    /// Partials no connection is writing are dropped to make it, the one untouched longest first;
    /// their paths are returned, for the log. `fits` is false when it still does not fit (the
    /// upload is then refused whole). An upload with nothing else held always fits, as a photo
    /// larger than the limit does in an empty spool.
    func makeRoom(user: String, path: FTPVirtualPath, bytes: Int64) -> (fits: Bool, dropped: [String]) {
        let limit = spool.limits.maxBytes
        let mine = partialURL(user: user, path: path).path
        let others = allPartials().filter { $0.url.path != mine }
        var held = spool.heldBytes + others.reduce(Int64(0)) { $0 + $1.bytes }
        var dropped: [String] = []
        if held + bytes <= limit { return (true, dropped) }
        for partial in others.sorted(by: { $0.modified < $1.modified }) where drop(partial) {
            dropped.append(partial.virtual)
            held -= partial.bytes
            if held + bytes <= limit { return (true, dropped) }
        }
        return (held == 0, dropped)
    }

    /// A partial upload on disk.
    private struct Partial {
        let user: String
        /// The path the camera sent it to.
        let virtual: String
        let url: URL
        let bytes: Int64
        let modified: Date
    }

    /// Every partial upload on disk, of every user.
    private func allPartials() -> [Partial] {
        var found: [Partial] = []
        for user in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
            let userURL = folder.appendingPathComponent(user)
            for name in (try? FileManager.default.contentsOfDirectory(atPath: userURL.path)) ?? [] where name.hasSuffix(".part") {
                let url = userURL.appendingPathComponent(name)
                guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { continue }
                let virtual = (try? String(contentsOf: url.deletingPathExtension().appendingPathExtension("path"), encoding: .utf8)) ?? name
                found.append(
                    Partial(
                        user: user, virtual: virtual, url: url, bytes: (attributes[.size] as? NSNumber)?.int64Value ?? 0,
                        modified: attributes[.modificationDate] as? Date ?? .distantPast))
            }
        }
        return found
    }

    /// Removes `partial` and its `.path` unless a session holds its path, or (with `cutoff`) it
    /// was written since. Checked and unlinked under one lock: a session claims before it opens
    /// its partial, so none can start writing (or resume) between the check and the unlink.
    private func drop(_ partial: Partial, ifUntouchedSince cutoff: Date? = nil) -> Bool {
        state.withLockedValue { state in
            guard !state.claimed.contains(Self.key(partial.user, partial.virtual)) else { return false }
            if let cutoff {
                let modified = (try? FileManager.default.attributesOfItem(atPath: partial.url.path))?[.modificationDate] as? Date
                guard let modified, modified < cutoff else { return false }
            }
            unlink(partial.url.path)
            unlink(partial.url.deletingPathExtension().appendingPathExtension("path").path)
            return true
        }
    }

    // MARK: - What a client sees

    /// A received or partial file at `path`.
    func info(user: String, path: FTPVirtualPath) -> FileInfo? {
        if let partial = partialInfo(user: user, path: path) { return partial }
        return state.withLockedValue { $0.received[user]?[path] }
    }

    /// The files and folders directly in `folderPath`.
    func listing(user: String, folder folderPath: FTPVirtualPath) -> [FTPListing.Entry] {
        var files: [String: FileInfo] = [:]
        var folders: Set<String> = []
        var all = state.withLockedValue { $0.received[user] ?? [:] }
        for (path, info) in partials(user: user) { all[path] = info }
        for (path, info) in all
        where path.components.count > folderPath.components.count
            && Array(path.components.prefix(folderPath.components.count)) == folderPath.components
        {
            let next = path.components[folderPath.components.count]
            if path.components.count == folderPath.components.count + 1 { files[next] = info } else { folders.insert(next) }
        }
        let now = Date()
        return folders.sorted().map { FTPListing.Entry(name: $0, isFolder: true, bytes: 0, modified: now) }
            + files.keys.sorted().map {
                FTPListing.Entry(name: $0, isFolder: false, bytes: files[$0]!.bytes, modified: files[$0]!.modified)
            }
    }

    /// What became of an RNFR/RNTO.
    enum RenameOutcome {
        /// `partial`: a partial upload was moved (not the record of a received file).
        case renamed(partial: Bool)
        /// One of the two paths is being uploaded on another connection.
        case busy
        case failed
    }

    /// Renames a partial upload, or the record of a received one. Both paths are claimed for
    /// the rename, so another session of the same user cannot move a partial over, or out from
    /// under, an upload in progress.
    func rename(user: String, from: FTPVirtualPath, to: FTPVirtualPath) -> RenameOutcome {
        let keys: Set = [Self.key(user, from), Self.key(user, to)]
        let claimedBoth = state.withLockedValue { state -> Bool in
            guard state.claimed.isDisjoint(with: keys) else { return false }
            state.claimed.formUnion(keys)
            return true
        }
        guard claimedBoth else { return .busy }
        defer {
            state.change { $0.claimed.subtract(keys) }
        }
        return moveClaimed(user: user, from: from, to: to).map { .renamed(partial: $0) } ?? .failed
    }

    /// Moves the partial upload (true) or the record of a received file (false); nil when there
    /// is neither, or the move failed.
    private func moveClaimed(user: String, from: FTPVirtualPath, to: FTPVirtualPath) -> Bool? {
        let source = partialURL(user: user, path: from)
        if FileManager.default.fileExists(atPath: source.path) {
            let target = partialURL(user: user, path: to)
            guard Foundation.rename(source.path, target.path) == 0 else { return nil }
            unlink(source.deletingPathExtension().appendingPathExtension("path").path)
            Self.writePathFile(to.description, for: target)
            return true
        }
        return state.withLockedValue { state in
            guard let info = state.received[user]?[from] else { return nil }
            state.received[user]?[from] = nil
            state.received[user, default: [:]][to] = info
            return false
        }
    }

    /// Records a RAW or video file that was received and skipped, so SIZE answers for it.
    func remember(user: String, path: FTPVirtualPath, bytes: Int64) {
        state.withLockedValue { $0.received[user, default: [:]][path] = FileInfo(bytes: bytes, modified: Date(), complete: true) }
    }

    // MARK: - Internals

    /// Writes the virtual path a partial file belongs to beside it (`….path`), readable by relay's
    /// user alone like every file relay writes: a path names the camera's folders and files.
    /// Best effort: without it a restart cannot offer the partial for a resume, nothing more.
    private static func writePathFile(_ path: String, for partial: URL) {
        let url = partial.deletingPathExtension().appendingPathExtension("path")
        let fd = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        defer { close(fd) }
        fchmod(fd, 0o600)
        try? AtomicFile.writeAll(fd, Data(path.utf8))
    }

    private static func key(_ user: String, _ path: FTPVirtualPath) -> String { key(user, path.description) }

    /// The file name a photo is remembered under in the seen-log: the account and its path.
    static func seenFile(_ user: String, _ path: String) -> String { user + path }

    private static func key(_ user: String, _ path: String) -> String { user + "\u{0}" + path }

    private func userFolder(_ user: String) -> URL {
        folder.appendingPathComponent(user, isDirectory: true)
    }

    private func partialInfo(user: String, path: FTPVirtualPath) -> FileInfo? {
        let url = partialURL(user: user, path: path)
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { return nil }
        return FileInfo(
            bytes: (attributes[.size] as? NSNumber)?.int64Value ?? 0,
            modified: attributes[.modificationDate] as? Date ?? Date(), complete: false)
    }

    private func partials(user: String) -> [FTPVirtualPath: FileInfo] {
        var found: [FTPVirtualPath: FileInfo] = [:]
        let userURL = userFolder(user)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: userURL.path)) ?? [] where name.hasSuffix(".path") {
            guard let text = try? String(contentsOf: userURL.appendingPathComponent(name), encoding: .utf8),
                let path = try? FTPVirtualPath.resolve(text, from: .root),
                let info = partialInfo(user: user, path: path)
            else { continue }
            found[path] = info
        }
        return found
    }
}
