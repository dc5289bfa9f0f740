import Foundation
import RelayCore

/// A photo offered for upload while its download into `.incoming/` is still running
/// (cut-through), as one upload worker sees it.
///
/// The reader never sees the photo's last byte before the tether has checked the whole download
/// (``IncomingPhoto/markComplete()``), and a download that fails or is rewound abandons the
/// offer for good. So an upload that sent every byte sent the final, checked photo, and one
/// that did not is incomplete on the wire and cannot be stored by the gallery. Even then the
/// photo counts as delivered only once it is committed to the spool (``outcome()``).
///
/// `@unchecked Sendable`: all mutable state is guarded by `condition`.
public final class GrowingPhoto: GrowingFile, @unchecked Sendable {
    /// How the download ended, as the uploading worker learns it.
    public enum Outcome: Sendable, Equatable {
        /// Spooled: the entry is in flight for the worker that claimed this photo.
        case committed(SpoolEntry)
        /// Not spooled (a failed download, a failed commit, a stop); the photo stays on the card.
        case abandoned
    }

    /// The entry the photo will have in the spool: its id, sequence, upload name, and size.
    public let entry: SpoolEntry
    /// The file being written (it is renamed into the spool on commit; an open descriptor
    /// keeps reading the same file).
    public let url: URL
    public var finalSize: Int64 { entry.bytes }

    private let condition = NSCondition()
    private var written: Int64
    private var complete = false
    private var ending: Outcome?

    init(entry: SpoolEntry, url: URL, written: Int64) {
        self.entry = entry
        self.url = url
        self.written = written
    }

    public var isAbandoned: Bool {
        condition.withLock { ending == .abandoned }
    }

    public func waitForBytes(beyond offset: Int64, timeout: TimeInterval) -> GrowingFileProgress {
        let deadline = Date().addingTimeInterval(max(0, timeout))
        condition.lock()
        defer { condition.unlock() }
        while true {
            if ending == .abandoned { return .abandoned }
            // The last byte waits for the checked end of the download.
            let readable = complete ? written : min(written, finalSize - 1)
            if readable > offset { return .available(readable) }
            if !condition.wait(until: deadline) { return .pending }
        }
    }

    /// How the download ended, if it has.
    var ended: Outcome? {
        condition.withLock { ending }
    }

    /// Blocks until the download is committed to the spool or abandoned.
    public func outcome() -> Outcome {
        condition.lock()
        defer { condition.unlock() }
        while ending == nil { condition.wait() }
        return ending ?? .abandoned
    }

    // MARK: - Writer side (the tether thread, through IncomingPhoto and Spool)

    func grew(to count: Int64) {
        condition.withLock {
            written = count
            condition.broadcast()
        }
    }

    /// Every byte was downloaded and checked; a size other than the announced one abandons.
    func markComplete(size: Int64) {
        condition.withLock {
            if size == finalSize { complete = true } else if ending == nil { ending = .abandoned }
            condition.broadcast()
        }
    }

    func end(_ outcome: Outcome) {
        condition.withLock {
            if ending == nil { ending = outcome }
            condition.broadcast()
        }
    }
}
