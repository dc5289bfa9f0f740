import CFileFlush
import Foundation
import RelayCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A photo being written into the spool's `.incoming/` folder by one source thread. It is not
/// part of the queue (and never uploaded) until ``Spool/commit(_:committed:)``; a restart
/// discards whatever is left in `.incoming/`.
///
/// `@unchecked Sendable`: it is created, written and committed by the one thread that owns the
/// source, and all its mutable state (descriptor, byte counts, offer, flush) belongs to that thread.
public final class IncomingPhoto: @unchecked Sendable {
    public internal(set) var identity: PhotoIdentity
    /// Where it is being written (in `.incoming/`, or the file its writer adopted).
    public let url: URL
    private(set) var descriptor: Int32
    /// Bytes written so far: where a resumed download continues.
    public private(set) var byteCount: Int64 = 0
    /// Bytes handed to the disk's writeback so far (see `append`).
    private var writebackStarted: Int64 = 0
    /// How many written bytes start their writeback together.
    static let writebackBatch: Int64 = 1 << 20
    /// The fsync running on another thread, if one was started.
    private var flush: BackgroundFlush?
    /// The offer of this photo to an upload worker while it is written (``Spool/offer(_:)``).
    var growth: GrowingPhoto?
    /// The spool it is written into: a rewind withdraws its offer there.
    weak var spool: Spool?
    /// Sequence and upload name fixed when the photo was first offered: a cut-through upload
    /// has already sent the name, and a resumed download keeps it.
    var reservation: (sequence: Int, uploadName: String)?

    init(identity: PhotoIdentity, url: URL, descriptor: Int32, byteCount: Int64 = 0) {
        self.identity = identity
        self.url = url
        self.descriptor = descriptor
        self.byteCount = byteCount
        writebackStarted = byteCount
    }

    deinit { closeFile() }

    /// Appends `bytes` (all of them, or an error: a full disk is `SpoolError.diskFull`).
    public func append(_ bytes: [UInt8]) throws(SpoolError) {
        do {
            try AtomicFile.writeAll(descriptor, bytes)
        } catch {
            throw error.isDiskFull ? .diskFull(path: url.path) : .io(path: url.path, reason: error.description)
        }
        wrote(upTo: byteCount + Int64(bytes.count))
    }

    /// Records that the file now holds `count` bytes, written through its descriptor by an owner
    /// that writes it itself (``Spool/adopt(_:url:descriptor:)``): an upload reading it may go on.
    public func wrote(upTo count: Int64) {
        byteCount = count
        growth?.grew(to: byteCount)
        // The disk writes the photo while the rest downloads, so the fsync of the commit waits
        // for the last megabyte instead of the whole file. Best effort: the fsync decides.
        if byteCount - writebackStarted >= Self.writebackBatch {
            _ = relay_start_writeback(descriptor, off_t(writebackStarted), off_t(byteCount - writebackStarted))
            writebackStarted = byteCount
        }
    }

    /// Cuts the file back to `count` bytes (bytes of a chunk the camera then declared failed).
    public func truncate(to count: Int64) throws(SpoolError) {
        guard count < byteCount else { return }
        // Bytes an upload may already have sent are taken back: that upload must not complete,
        // and the ledger hands the download to nobody else.
        spool?.withdraw(self)
        guard ftruncate(descriptor, off_t(count)) == 0, lseek(descriptor, off_t(count), SEEK_SET) >= 0 else {
            throw .io(path: url.path, reason: Errno.current("ftruncate").description)
        }
        byteCount = count
        writebackStarted = min(writebackStarted, count)
    }

    /// Starts flushing the complete file to disk on another thread, so that the next download
    /// need not wait for the disk; ``Spool/commit(_:committed:)`` waits for it and reports its
    /// failure (a failed fsync is not reported twice, so its error is kept, not retried).
    public func flushInBackground() {
        guard flush == nil, descriptor >= 0 else { return }
        let flush = BackgroundFlush(descriptor: descriptor)
        self.flush = flush
        Thread.detachNewThread { flush.run() }
    }

    /// Whether a flush started by ``flushInBackground()`` has ended (a commit will not wait).
    public var isFlushed: Bool { flush?.hasEnded ?? false }

    /// Flushes the file to disk and returns its size.
    func synchronize() throws -> Int64 {
        if let flush {
            self.flush = nil
            if let failure = flush.result() { throw failure }
        }
        try Durable.sync(descriptor)
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw Errno.current("fstat") }
        return Int64(info.st_size)
    }

    /// Closes the file (it stays where it is); the photo can no longer be committed.
    public func closeFile() {
        _ = flush?.result()
        flush = nil
        if descriptor >= 0 {
            Foundation.close(descriptor)
            descriptor = -1
        }
    }
}

/// One fsync run on its own thread; its outcome is waited for once.
private final class BackgroundFlush: Sendable {
    private let descriptor: Int32
    /// Nil until the fsync ended; then its error, if it failed.
    private let outcome = LockedBox<Result<Void, Errno>?>(nil)

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    func run() {
        let result = Result { () throws(Errno) in try Durable.sync(descriptor) }
        outcome.change { $0 = result }
    }

    var hasEnded: Bool { outcome.current != nil }

    /// Waits for the fsync; its error, if it failed.
    func result() -> Errno? {
        let ended = outcome.wait { $0.map { .ready($0) } ?? .until(nil) }
        if case .failure(let error) = ended { return error }
        return nil
    }
}
