import Foundation

/// A one-way "stop now" shared by the threads of a run: set once by the signal handler, checked
/// by loops, and able to cut short their sleeps so that shutdown does not wait for a poll interval.
public final class StopFlag: Sendable {
    /// When `stop()` was first called (uptime seconds); nil while not stopped.
    private let stoppedAt = LockedBox<TimeInterval?>(nil)
    /// Told once, when the flag is set: a thread that waits on something else wakes for it.
    private let observers = LockedBox<[@Sendable () -> Void]>([])

    public init() {}

    public var isStopped: Bool {
        stoppedAt.current != nil
    }

    public func stop() {
        let first = stoppedAt.change { stoppedAt in
            defer { if stoppedAt == nil { stoppedAt = ProcessInfo.processInfo.systemUptime } }
            return stoppedAt == nil
        }
        guard first else { return }
        for observer in observers.withLockedValue({ observers in
            defer { observers = [] }
            return observers
        }) {
            observer()
        }
    }

    /// Calls `body` once when the flag is set (at once if it is): for a thread that waits on its
    /// own box or descriptor, so that a stop wakes it instead of being noticed at its next look.
    public func onStop(_ body: @escaping @Sendable () -> Void) {
        let now = observers.withLockedValue { observers in
            if isStopped { return true }
            observers.append(body)
            return false
        }
        if now { body() }
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
