import Foundation

/// A flag another thread sets to abort a transfer in flight (used when the shutdown grace
/// period ends). The worker's curl progress callback polls it, so an abort takes effect within
/// about a second even while the server is silent.
///
/// `@unchecked Sendable`: the only state, `cancelled`, is read and written under `lock`.
public final class UploadCancellation: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false

    public init() {}

    /// Aborts the current transfer and every later one that uses this token.
    public func cancel() {
        lock.lock()
        cancelled = true
        lock.unlock()
    }

    public var isCancelled: Bool {
        lock.lock()
        defer { lock.unlock() }
        return cancelled
    }
}
