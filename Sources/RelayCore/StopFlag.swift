import Foundation

/// A one-way "stop now" shared by the threads of a run: set once by the signal handler, checked
/// by loops, and able to cut short their sleeps so that shutdown does not wait for a poll interval.
///
/// `@unchecked Sendable`: `stopped` and `stoppedAtUptime` are read and written under `condition`, on which `sleep` waits.
public final class StopFlag: @unchecked Sendable {
    private let condition = NSCondition()
    private var stopped = false
    private var stoppedAtUptime: TimeInterval?

    public init() {}

    public var isStopped: Bool {
        condition.withLock { stopped }
    }

    public func stop() {
        condition.withLock {
            if !stopped { stoppedAtUptime = ProcessInfo.processInfo.systemUptime }
            stopped = true
            condition.broadcast()
        }
    }

    /// Seconds since `stop()` was first called, nil while not stopped: lets a loop give work in
    /// progress a short grace before it abandons it.
    public var secondsSinceStop: TimeInterval? {
        condition.withLock { stoppedAtUptime.map { ProcessInfo.processInfo.systemUptime - $0 } }
    }

    /// Sleeps up to `seconds`; returns early (true) when stopped meanwhile.
    @discardableResult
    public func sleep(_ seconds: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        condition.lock()
        defer { condition.unlock() }
        while !stopped && condition.wait(until: deadline) {}
        return stopped
    }
}
