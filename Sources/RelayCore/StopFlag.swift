import Foundation

/// A one-way "stop now" shared by the threads of a run: set once by the signal handler, checked
/// by loops, and able to cut short their sleeps so that shutdown does not wait for a poll interval.
public final class StopFlag: @unchecked Sendable {
    private let condition = NSCondition()
    private var stopped = false

    public init() {}

    public var isStopped: Bool {
        condition.withLock { stopped }
    }

    public func stop() {
        condition.withLock {
            stopped = true
            condition.broadcast()
        }
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
