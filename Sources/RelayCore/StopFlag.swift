import Foundation

/// A one-way "stop now" shared by the threads of a run: set once by the signal handler, checked
/// by loops, and able to cut short their sleeps so that shutdown does not wait for a poll interval.
public final class StopFlag: Sendable {
    /// When `stop()` was first called (uptime seconds); nil while not stopped.
    private let stoppedAt = LockedBox<TimeInterval?>(nil)

    public init() {}

    public var isStopped: Bool {
        stoppedAt.current != nil
    }

    public func stop() {
        stoppedAt.change { stoppedAt in
            if stoppedAt == nil { stoppedAt = ProcessInfo.processInfo.systemUptime }
        }
    }

    /// Seconds since `stop()` was first called, nil while not stopped: lets a loop give work in
    /// progress a short grace before it abandons it.
    public var secondsSinceStop: TimeInterval? {
        stoppedAt.current.map { ProcessInfo.processInfo.systemUptime - $0 }
    }

    /// Sleeps up to `seconds`; returns early (true) when stopped meanwhile.
    @discardableResult
    public func sleep(_ seconds: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        return stoppedAt.wait { stoppedAt in
            if stoppedAt != nil { return .ready(true) }
            return Date() >= deadline ? .ready(false) : .until(deadline)
        }
    }
}
