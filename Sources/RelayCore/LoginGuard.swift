import Foundation

/// Slows down password and token guessing at relay's receivers (FTP, the HTTP inbox): each failed
/// login from an address makes the next answer to that address wait twice as long (0.1 s, 0.2 s,
/// … up to 5 s), a success clears it. A camera or field relay with the right secret never waits;
/// a script trying secrets gets a few a second at most.
public final class LoginGuard: Sendable {
    /// Failed logins in a row, by address.
    private let failures = LockedBox<[String: Int]>([:])
    private let firstDelay: TimeInterval
    private let maxDelay: TimeInterval

    public init(firstDelay: TimeInterval = 0.1, maxDelay: TimeInterval = 5) {
        self.firstDelay = firstDelay
        self.maxDelay = maxDelay
    }

    /// Counts a failure from `host`; returns how many in a row and how long to wait before answering.
    public func failed(from host: String) -> (count: Int, delay: TimeInterval) {
        let count = failures.withLockedValue { failures -> Int in
            let count = (failures[host] ?? 0) + 1
            failures[host] = count
            return count
        }
        return (count, min(maxDelay, firstDelay * pow(2, Double(min(count - 1, 16)))))
    }

    public func succeeded(from host: String) {
        _ = failures.withLockedValue { $0.removeValue(forKey: host) }
    }
}
