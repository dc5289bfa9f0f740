import Foundation
import RelayCore

/// A run's `RunState`, kept up to date from the bus, for readers on other threads (the
/// progress line's timer, the status page's server).
public final class LiveRunState: Sendable {
    private let state = LockedBox(RunState())

    /// Starts following `bus` (inline: a reader sees every event published before it asked).
    public init(following bus: RunEventBus) {
        bus.subscribeInline { [state] event in state.withLockedValue { $0.apply(event) } }
    }

    /// A copy of the state now.
    public var snapshot: RunState { state.current }
}
