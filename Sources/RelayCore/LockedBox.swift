import Foundation

/// A value reachable only under its lock, so that no field is read or written without it by
/// mistake (the shape of SwiftNIO's `NIOLockedValueBox`; `Mutex` from the Synchronization module
/// needs macOS 15, and relay builds for macOS 13). The lock is a condition, so a thread can also
/// wait for the value to become what it needs (``wait(_:)``), woken by a ``change(_:)``:
/// the one toolkit for a value shared between threads, instead of a lock and a condition written
/// out beside the fields they guard.
public final class LockedBox<Value> {
    private let condition = NSCondition()
    private var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock; keep it short and never block in it.
    @discardableResult
    public func withLockedValue<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        condition.lock()
        defer { condition.unlock() }
        return try body(&value)
    }

    /// Like ``withLockedValue(_:)``, then wakes every thread waiting in ``wait(_:)``, so
    /// that each looks at the changed value.
    @discardableResult
    public func change<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return try body(&value)
    }

    /// Waits until `decide` says the value is ready: it runs under the lock, first at once and
    /// then each time the value changed or the time it named came, and returns the result
    /// (`.ready`) or how long to wait before it is asked again (`.until`, nil: until a change).
    /// It may change the value too. The shape of a state machine's "what now, and when next".
    public func wait<Result, Failure: Error>(_ decide: (inout Value) throws(Failure) -> LockedWait<Result>) throws(Failure) -> Result {
        condition.lock()
        defer { condition.unlock() }
        while true {
            switch try decide(&value) {
            case .ready(let result):
                return result
            case .until(let deadline?):
                _ = condition.wait(until: deadline)
            case .until(nil):
                condition.wait()
            }
        }
    }

    /// A copy of the value, read under the lock.
    public var current: Value {
        withLockedValue { $0 }
    }
}

/// Every access to the value goes through the lock, so the box may be shared between threads
/// whenever its value may be (as `NIOLockedValueBox`).
extension LockedBox: @unchecked Sendable where Value: Sendable {}

/// What a waiter decides about a ``LockedBox``'s value: done, with a result, or ask again at a
/// time (nil: when the value changes).
public enum LockedWait<Result> {
    case ready(Result)
    case until(Date?)
}
