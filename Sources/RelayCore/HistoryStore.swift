import Foundation

/// `history.json`: the rolling upload history, shared by all upload workers.
///
/// Workers are threads blocked in libcurl, so the store is a lock-protected class rather than an
/// actor: each `append` holds the lock across load-free insert and atomic save, so records from
/// concurrent workers never overwrite each other.
///
/// `@unchecked Sendable`: `log` is read and written under `lock`, which also serializes saves of `file` (immutable).
public final class HistoryStore: @unchecked Sendable {
    private let file: JSONStateFile<HistoryLog>
    private let lock = NSLock()
    private var log: HistoryLog

    /// Where a history that could not be read was moved (said once by whoever opened it).
    public let setAside: URL?

    /// Opens the history. It is only a log: one that cannot be parsed (torn by a power cut,
    /// emptied, edited by hand) is moved aside, byte for byte, and a new one begun.
    public init(home: RelayHome) throws(StateFileError) {
        file = JSONStateFile(url: home.historyFile)
        let loaded = try file.loadSettingAsideUnreadable()
        log = loaded.value ?? HistoryLog()
        setAside = loaded.setAside
    }

    /// The sentence for a history that was set aside.
    public var setAsideNotice: String? {
        setAside.map { "history.json could not be read; it was moved aside to \($0.lastPathComponent) and a new history begun" }
    }

    public var records: [HistoryRecord] {
        lock.withLock { log.records }
    }

    /// Adds a record at the front and saves the file.
    public func append(_ record: HistoryRecord) throws(StateFileError) {
        lock.lock()
        defer { lock.unlock() }
        var next = log
        next.add(record)
        try file.save(next)
        log = next
    }
}
