import Foundation
import RelayCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The objects a source has already taken, so that a restart or reconnect never takes one twice.
///
/// An append-only JSON Lines file under `seen/`, one line per photo, fsynced per line (and its
/// name synced into `seen/` when it is made, ``Durable``): appending costs one small write
/// however long the event runs. A last line cut short by a crash was never
/// committed and is ignored (the photo is taken again and the spool's stable id de-duplicates it);
/// any other unreadable line makes the file an error, left untouched.
///
/// A season-long log stays cheap: keys and file names are held as 128-bit digests
/// (``SeenDigest``), and an index beside the log (``SeenIndex``) holds those of its lines up to
/// an offset, so that a start parses only the lines after it. The index is made again, atomically,
/// when a start finds many lines after it; the log itself is never rewritten.
public final class SeenLog: Sendable {
    private struct Line: Codable {
        var key: String
        var file: String
        var takenAt: Date
    }

    /// The digests recorded so far; its lock also serializes appends to `fd`.
    private struct Digests: Sendable {
        var keys = SeenDigestSet()
        var files = SeenDigestSet()
    }

    public let url: URL
    private let digests: LockedBox<Digests>
    /// The log, open for appending from init to deinit.
    private let fd: Int32

    /// Lines a start may parse after the index before it makes the index again.
    static let linesBeforeIndexing = 1000

    var indexURL: URL { url.appendingPathExtension("idx") }

    /// Whether the log answers ``containsFile(_:)``: the FTP receiver asks it, the other
    /// sources do not, and their logs then keep no file digests in memory.
    private let tracksFiles: Bool

    public init(url: URL, tracksFiles: Bool = false) throws(StateFileError) {
        self.url = url
        self.tracksFiles = tracksFiles
        try StateDirectory.create(url.deletingLastPathComponent())
        digests = LockedBox(try Self.load(url, tracksFiles: tracksFiles))
        // A new log's name is synced into seen/ at once: lines fsynced into a file whose name a
        // power cut drops would make the camera's whole card new again.
        do {
            fd = try Durable.openCreating(url.path, flags: O_WRONLY | O_APPEND | O_CREAT)
        } catch {
            throw .writeFailed(path: url.path, reason: error.description)
        }
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    /// The file for one source, named by a hash of its identity (e.g. the folder's path).
    public static func url(in home: RelayHome, source: String, label: String) -> URL {
        let safe = String(label.map { $0.isLetter || $0.isNumber ? $0 : "-" }.suffix(40))
        return home.seenDirectory.appendingPathComponent("\(safe)-\(StableHashPrefix.make(source)).jsonl")
    }

    public var count: Int { digests.withLockedValue { $0.keys.count } }

    public func contains(_ key: String) -> Bool {
        let digest = SeenDigest(key)
        return digests.withLockedValue { $0.keys.contains(digest) }
    }

    /// Whether any photo was recorded under the file name `file` (a camera sending a different
    /// photo under a name it used before).
    public func containsFile(_ file: String) -> Bool {
        precondition(tracksFiles, "a seen-log opened without tracksFiles keeps no file names")
        let digest = SeenDigest(file)
        return digests.withLockedValue { $0.files.contains(digest) }
    }

    /// Remembers `key` durably before returning.
    public func record(_ key: String, file: String) throws(StateFileError) {
        try record([(key, file)])
    }

    /// Remembers every key durably with one flush (a camera's photos at its first connection).
    public func record(_ entries: [(key: String, file: String)]) throws(StateFileError) {
        try digests.withLockedValue { digests throws(StateFileError) in try append(entries, to: &digests) }
    }

    /// Appends the lines of the entries not recorded yet, fsynced, then remembers them.
    private func append(_ entries: [(key: String, file: String)], to digests: inout Digests) throws(StateFileError) {
        var added: [(key: SeenDigest, file: SeenDigest)] = []
        var data = Data()
        do {
            for entry in entries {
                let digest = SeenDigest(entry.key)
                guard !digests.keys.contains(digest), !added.contains(where: { $0.key == digest }) else { continue }
                added.append((digest, SeenDigest(entry.file)))
                data.append(try JSONEncoder().encode(Line(key: entry.key, file: entry.file, takenAt: Date())))
                data.append(0x0A)
            }
        } catch {
            throw .writeFailed(path: url.path, reason: "cannot encode: \(error)")
        }
        guard !data.isEmpty else { return }
        do {
            try Durable.appendLines(data, to: fd)
        } catch {
            throw .writeFailed(path: url.path, reason: "\(error)")
        }
        for entry in added {
            digests.keys.insert(entry.key)
            if tracksFiles { digests.files.insert(entry.file) }
        }
    }

    /// The digests of every line of the log at `url` (from its index, then the lines after it).
    private static func load(_ url: URL, tracksFiles: Bool) throws(StateFileError) -> Digests {
        var digests = Digests()
        guard let handle = FileHandle(forReadingAtPath: url.path) else {
            guard FileManager.default.fileExists(atPath: url.path) else { return digests }
            throw .unreadable(path: url.path, reason: Errno.current("open").description)
        }
        defer { try? handle.close() }
        let size: Int
        do { size = Int(try handle.seekToEnd()) } catch { throw .unreadable(path: url.path, reason: "\(error)") }
        var start = 0
        let indexURL = url.appendingPathExtension("idx")
        if let index = SeenIndex.read(indexURL, logSize: size, check: { Self.check(handle, offset: $0) }),
            tracksFiles == (!index.files.isEmpty || index.keys.isEmpty)
        {
            digests.keys = SeenDigestSet(sorted: index.keys)
            digests.files = SeenDigestSet(sorted: index.files)
            start = index.offset
        }
        let data: Data
        do {
            try handle.seek(toOffset: UInt64(start))
            data = try handle.readToEnd() ?? Data()
        } catch {
            throw .unreadable(path: url.path, reason: "\(error)")
        }
        let lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)
        var parsed = 0
        for (index, line) in lines.enumerated() where !line.isEmpty {
            do {
                let record = try JSONDecoder().decode(Line.self, from: Data(line))
                digests.keys.insert(SeenDigest(record.key))
                if tracksFiles { digests.files.insert(SeenDigest(record.file)) }
                parsed += 1
            } catch {
                let isTornTail = index == lines.count - 1
                if isTornTail { continue }
                let place = start == 0 ? "line \(index + 1)" : "line \(index + 1) after byte \(start)"
                throw .corrupt(path: url.path, reason: "\(place) is not a seen-record")
            }
        }
        // Up to the last complete line: a torn tail was never committed.
        let clean = start + ((data.lastIndex(of: 0x0A).map { $0 - data.startIndex + 1 }) ?? 0)
        if clean < size {
            // Cut the torn tail off so the next append starts cleanly.
            guard truncate(url.path, off_t(clean)) == 0 else {
                throw .writeFailed(path: url.path, reason: Errno.current("truncate").description)
            }
        }
        if parsed >= Self.linesBeforeIndexing { writeIndex(of: &digests, upTo: clean, handle: handle, to: indexURL) }
        return digests
    }

    /// Writes the index of every line up to `offset` (best effort: without it, starts are only slower).
    private static func writeIndex(of digests: inout Digests, upTo offset: Int, handle: FileHandle, to indexURL: URL) {
        guard let check = Self.check(handle, offset: offset) else { return }
        digests.keys.compact()
        digests.files.compact()
        let contents = SeenIndex.Contents(offset: offset, keys: digests.keys.sorted, files: digests.files.sorted)
        try? AtomicFile.write(SeenIndex.encode(contents, check: check), to: indexURL)
    }

    /// The index's check of the log's bytes before `offset`, read from the log.
    private static func check(_ handle: FileHandle, offset: Int) -> UInt64? {
        let from = max(0, offset - SeenIndex.checkedBytes)
        guard (try? handle.seek(toOffset: UInt64(from))) != nil,
            let bytes = try? handle.read(upToCount: offset - from), bytes.count == offset - from
        else { return from == offset ? SeenIndex.check(Data(), offset: 0) : nil }
        return SeenIndex.check(bytes, offset: bytes.count)
    }
}

/// A short stable tag for file names.
enum StableHashPrefix {
    static func make(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return String(hash, radix: 16)
    }
}
