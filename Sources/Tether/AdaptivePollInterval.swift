/// The wait between two polls of a camera that reports events only when asked (Canon EOS and
/// Nikon GetEvent): short right after something happened, when more is likely to follow (a burst),
/// longer while the camera is idle, so that an idle camera is not flooded with requests.
public struct AdaptivePollInterval: Sendable, Equatable {
    public let minimum: Double
    public let step: Double
    public let maximum: Double
    /// The wait before the next poll.
    public private(set) var current: Double

    /// 50 ms, +50 ms per idle poll, at most 200 ms (the design's rule).
    public init(minimum: Double = 0.05, step: Double = 0.05, maximum: Double = 0.2) {
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
