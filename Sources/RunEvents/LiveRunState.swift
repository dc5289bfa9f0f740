import Foundation

/// A run's `RunState`, kept up to date from the bus, for readers on other threads (the
/// progress line's timer, the status page's server).
public final class LiveRunState: @unchecked Sendable {
    private let lock = NSLock()
    private var state = RunState()

    /// Starts following `bus`.
    public init(following bus: RunEventBus) {
        bus.subscribe { [self] event in lock.withLock { state.apply(event) } }
    }

    /// A copy of the state now.
    public var snapshot: RunState { lock.withLock { state } }
}
