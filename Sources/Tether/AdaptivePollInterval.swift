/// The wait between two polls of a camera that reports events only when asked (Canon EOS and
/// Nikon GetEvent): short right after something happened, when more is likely to follow (a burst),
/// longer while the camera is idle, so that an idle camera is not flooded with requests.
public struct AdaptivePollInterval: Sendable, Equatable {
    public let minimum: Double
    public let step: Double
    public let maximum: Double
    /// The wait before the next poll.
    public private(set) var current: Double

    /// 50 ms, +50 ms per idle poll, at most 100 ms. The design allows up to 200 ms; half of that
    /// wait is, on average, added to every photo's shutter-to-gallery time (BENCHMARKS.md,
    /// latency), while a GetEvent that finds nothing costs the camera one small round trip.
    public init(minimum: Double = 0.05, step: Double = 0.05, maximum: Double = 0.1) {
        self.minimum = minimum
        self.step = step
        self.maximum = max(minimum, maximum)
        current = minimum
    }

    /// Records a poll's outcome and returns the wait before the next one.
    @discardableResult
    public mutating func record(activity: Bool) -> Double {
        current = activity ? minimum : min(maximum, current + step)
        return current
    }
}
