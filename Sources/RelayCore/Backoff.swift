import Foundation

/// Exponential backoff with full jitter: after the failed attempt number `attempt` (0 for the
/// first), wait a uniformly random time in [0, min(cap, base × 2^attempt)]. The jitter keeps
/// several workers (and several photographers' boxes) from hammering a recovering gallery in
/// step. A value, so tests can use tiny delays and a seeded random source.
public struct Backoff: Sendable, Equatable {
    public var base: TimeInterval
    public var cap: TimeInterval

    public init(base: TimeInterval = 0.5, cap: TimeInterval = 60) {
        self.base = base
        self.cap = cap
    }

    /// The upper bound of the wait after failed attempt `attempt` (negative counts as 0).
    public func ceiling(attempt: Int) -> TimeInterval {
        guard base > 0, cap > 0 else { return 0 }
        // 2^63 already dwarfs any cap; clamping the exponent keeps the product finite.
        let exponent = Double(min(max(attempt, 0), 63))
        return min(cap, base * pow(2, exponent))
    }

    public func delay(attempt: Int, using random: inout some RandomNumberGenerator) -> TimeInterval {
        let upper = ceiling(attempt: attempt)
        guard upper > 0 else { return 0 }
        return Double.random(in: 0...upper, using: &random)
    }

    public func delay(attempt: Int) -> TimeInterval {
        var random = SystemRandomNumberGenerator()
        return delay(attempt: attempt, using: &random)
    }
}

/// How a shutter release the camera answers DeviceBusy is asked again, for a timed capture and
/// a bracketing frame alike: three attempts in all, 0.3 s then 0.6 s apart.
public enum ReleaseRetry {
    public static let attempts = 3
    public static let backoff = Backoff(base: 0.3, cap: 1.2)
}
