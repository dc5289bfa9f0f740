import Foundation
import RelayCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The objects a source has already taken, so that a restart or reconnect never takes one twice.
///
/// An append-only JSON Lines file under `seen/`, one line per photo, fsynced per line: appending
/// costs one small write however long the event runs. A last line cut short by a crash was never
/// committed and is ignored (the photo is taken again and the spool's stable id de-duplicates it);
/// any other unreadable line makes the file an error, left untouched.
///
/// `@unchecked Sendable`: `keys` is read and written under `lock`, which also serializes appends to `fd` (set once in init).
public final class SeenLog: @unchecked Sendable {
    private struct Line: Codable {
        var key: String
        var file: String
        var takenAt: Date
    }

    public let url: URL
    private let lock = NSLock()
    private var keys: Set<String> = []
    private var fd: Int32 = -1

    public init(url: URL) throws(StateFileError) {
        self.url = url
        try StateDirectory.create(url.deletingLastPathComponent())
        try load()
        fd = open(url.path, O_WRONLY | O_APPEND | O_CREAT, 0o600)
        guard fd >= 0 else { throw .writeFailed(path: url.path, reason: Errno.current("open").description) }
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    /// The file for one source, named by a hash of its identity (e.g. the folder's path).
    public static func url(in home: RelayHome, source: String, label: String) -> URL {
        let safe = String(label.map { $0.isLetter || $0.isNumber ? $0 : "-" }.suffix(40))
        return home.seenDirectory.appendingPathComponent("\(safe)-\(StableHashPrefix.make(source)).jsonl")
    }

    public var count: Int { lock.withLock { keys.count } }

    public func contains(_ key: String) -> Bool {
        lock.withLock { keys.contains(key) }
    }

    /// Whether a key `matching` says yes to was recorded (a scan of every key: for a question
    /// asked once per photo, not per byte).
    public func contains(where matching: (String) -> Bool) -> Bool {
        lock.withLock { keys.contains(where: matching) }
    }

    /// Remembers `key` durably before returning.
    public func record(_ key: String, file: String) throws(StateFileError) {
        try record([(key, file)])
    }

    /// Remembers every key durably with one flush (a camera's photos at its first connection).
    public func record(_ entries: [(key: String, file: String)]) throws(StateFileError) {
        lock.lock()
        defer { lock.unlock() }
        var added: Set<String> = []
        var data = Data()
        do {
            for entry in entries where !keys.contains(entry.key) && added.insert(entry.key).inserted {
                data.append(try JSONEncoder().encode(Line(key: entry.key, file: entry.file, takenAt: Date())))
                data.append(0x0A)
            }
        } catch {
            throw .writeFailed(path: url.path, reason: "cannot encode: \(error)")
        }
        guard !data.isEmpty else { return }
        let end = lseek(fd, 0, SEEK_END)
        do {
            try AtomicFile.writeAll(fd, data)
            guard fsync(fd) == 0 else { throw Errno.current("fsync") }
        } catch {
            // Cut a partly written line off again, so the next append starts on a clean line.
            if end >= 0 { _ = ftruncate(fd, end) }
            throw .writeFailed(path: url.path, reason: "\(error)")
        }
        keys.formUnion(added)
    }

    private func load() throws(StateFileError) {
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw .unreadable(path: url.path, reason: error.localizedDescription)
        }
        let lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)
        for (index, line) in lines.enumerated() where !line.isEmpty {
            do {
                keys.insert(try JSONDecoder().decode(Line.self, from: Data(line)).key)
            } catch {
                let isTornTail = index == lines.count - 1
                if isTornTail { continue }
                throw .corrupt(path: url.path, reason: "line \(index + 1) is not a seen-record")
            }
        }
        if let last = data.last, last != 0x0A {
            // Cut the torn tail off (it was never committed) so the next append starts cleanly.
            let keep = (data.lastIndex(of: 0x0A).map { $0 + 1 }) ?? 0
            guard truncate(url.path, off_t(keep)) == 0 else {
                throw .writeFailed(path: url.path, reason: Errno.current("truncate").description)
            }
        }
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
