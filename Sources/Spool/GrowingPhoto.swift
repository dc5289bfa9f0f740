import Foundation
import RelayCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A photo offered for upload while its download into `.incoming/` is still running
/// (cut-through), as the one upload worker that claims it sees it; or a photo's rendition
/// offered while it is being made from the downloading photo (the same rules, with "committed"
/// meaning the photo is committed and its rendition stored).
///
/// The reader never sees the photo's last byte before the photo is committed to the spool
/// (fsynced, its sidecar written, renamed in, recorded as taken), and a download that fails or is
/// rewound abandons the offer for good. So an upload that sent every byte sent the final photo,
/// and the gallery can answer it only once the photo is durably spooled; an upload that did not
/// send every byte is incomplete on the wire and cannot be stored by the gallery.
public final class GrowingPhoto: GrowingFile, Sendable {
    /// How the download ended, as the reader learns it.
    public typealias Outcome = OfferOutcome

    /// What the writer has told the reader so far.
    private struct Progress: Sendable {
        var written: Int64
        var ending: Outcome?
    }

    /// The entry the photo will have in the spool: its id, sequence, upload name, and size
    /// (0 when the source does not know it before the end).
    public let entry: SpoolEntry
    public var finalSize: Int64? {
        if entry.bytes > 0 { return entry.bytes }
        return progress.withLockedValue { if case .committed(let committed) = $0.ending { committed.deliveryBytes } else { nil } }
    }
    /// The number of this offer in the spool's ledger: a download offered again (after a
    /// withdrawal) is a new offer.
    public let offer: Int
    /// Where the download is written (until the commit renames it into the spool).
    public let url: URL
    /// Opened on the incoming file when offered, so the commit's rename does not move the file
    /// away from the reader; only read with `pread`.
    public let fileDescriptor: Int32

    private let progress: LockedBox<Progress>

    /// Nil when the incoming file cannot be opened for reading (then it is not offered).
    init?(entry: SpoolEntry, url: URL, written: Int64, offer: Int) {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        self.entry = entry
        self.offer = offer
        self.url = url
        progress = LockedBox(Progress(written: written))
        fileDescriptor = descriptor
    }

    deinit { close(fileDescriptor) }

    public var isAbandoned: Bool {
        progress.withLockedValue { $0.ending == .abandoned }
    }

    public func waitForBytes(beyond offset: Int64, timeout: TimeInterval) -> GrowingFileProgress {
        let deadline = Date().addingTimeInterval(max(0, timeout))
        let entry = entry
        return progress.wait { progress in
            let readable: Int64
            switch progress.ending {
            case .abandoned: return .ready(.abandoned)
            case .committed(let committed):
                // What is sent: the photo, or the rendition this file is.
                if offset >= committed.deliveryBytes { return .ready(.ended) }
                readable = committed.deliveryBytes
            case nil:
                // The last byte waits for the commit (of a file whose size is not known yet, the last written).
                readable = entry.bytes > 0 ? min(progress.written, entry.bytes - 1) : progress.written - 1
            }
            if readable > offset { return .ready(.available(readable)) }
            return Date() >= deadline ? .ready(.pending) : .until(deadline)
        }
    }

    /// How the download ended, if it has. After the gallery answered a complete upload it has
    /// ended, since the last byte is readable only once the photo is committed.
    public var ended: Outcome? {
        progress.withLockedValue { $0.ending }
    }

    // MARK: - Writer side (the tether thread, through IncomingPhoto and Spool)

    func grew(to count: Int64) {
        progress.change { $0.written = count }
    }

    func end(_ outcome: Outcome) {
        progress.change { progress in
            if progress.ending == nil { progress.ending = outcome }
        }
    }
}
