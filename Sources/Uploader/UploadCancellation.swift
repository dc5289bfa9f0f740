import Foundation
import RelayCore

/// A flag another thread sets to abort a transfer in flight (used when the shutdown grace
/// period ends). The worker's curl progress callback polls it, so an abort takes effect within
/// about a second even while the server is silent.
public final class UploadCancellation: Sendable {
    private let cancelled = LockedBox(false)

    public init() {}

    /// Aborts the current transfer and every later one that uses this token.
    public func cancel() {
        cancelled.withLockedValue { $0 = true }
    }

    public var isCancelled: Bool { cancelled.current }
}
