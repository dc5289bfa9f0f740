import Foundation

/// A value reachable only under its lock, so that no field is read or written without it by
/// mistake (the shape of SwiftNIO's `NIOLockedValueBox`; `Mutex` from the Synchronization module
/// needs macOS 15, and relay builds for macOS 13).
///
/// `@unchecked Sendable`: every access to `value` goes through `lock`.
public final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock; keep it short and never block in it.
    @discardableResult
    public func withLockedValue<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the value, read under the lock.
    public var current: Value {
        withLockedValue { $0 }
    }
}
