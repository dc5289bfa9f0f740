import Foundation

/// `history.json`: the rolling upload history, shared by all upload workers.
///
/// Workers are threads blocked in libcurl, so the store is a locked box rather than an actor:
/// each `append` holds it across the insert and the atomic save, so records from concurrent
/// workers never overwrite each other.
public final class HistoryStore: Sendable {
    private let file: JSONStateFile<HistoryLog>
    private let log: LockedBox<HistoryLog>

    /// Where a history that could not be read was moved (said once by whoever opened it).
    public let setAside: URL?

    /// Opens the history. It is only a log: one that cannot be parsed (torn by a power cut,
    /// emptied, edited by hand) is moved aside, byte for byte, and a new one begun.
    public init(home: RelayHome) throws(StateFileError) {
        file = JSONStateFile(url: home.historyFile)
        let loaded = try file.loadSettingAsideUnreadable()
        log = LockedBox(loaded.value ?? HistoryLog())
        setAside = loaded.setAside
    }

    /// The sentence for a history that was set aside.
    public var setAsideNotice: String? {
        setAside.map { "history.json could not be read; it was moved aside to \($0.lastPathComponent) and a new history begun" }
    }

    public var records: [HistoryRecord] {
        log.withLockedValue { $0.records }
    }

    /// Adds a record at the front and saves the file.
    public func append(_ record: HistoryRecord) throws(StateFileError) {
        try log.withLockedValue { (log: inout HistoryLog) throws(StateFileError) in
            var next = log
            next.add(record)
            try file.save(next)
            log = next
        }
    }
}
