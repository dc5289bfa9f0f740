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

    /// Opens the history; a corrupt file is an error and stays untouched.
    public init(home: RelayHome) throws(StateFileError) {
        file = JSONStateFile(url: home.historyFile)
        log = try file.load() ?? HistoryLog()
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
