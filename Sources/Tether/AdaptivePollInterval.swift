/// The wait between two polls of a camera that reports events only when asked (Canon EOS and
/// Nikon GetEvent). While the photographer is shooting, half the wait is added on average to
/// every photo's shutter-to-gallery time (BENCHMARKS.md, latency), so it stays at the minimum for
/// `hold` seconds after anything happened; a camera left alone longer backs off step by step to
/// the maximum, so that an idle camera is not flooded with requests.
///
/// DESIGN.md steps up after every idle poll, as gphoto2 does; holding the minimum through the
/// pauses of a shoot is relay's departure from it (50 ms polls are what both use right after an
/// event).
public struct AdaptivePollInterval: Sendable, Equatable {
    public let minimum: Double
    public let step: Double
    public let maximum: Double
    /// Seconds of quiet after an event before the interval starts to grow.
    public let hold: Double
    /// The wait before the next poll.
    public private(set) var current: Double
    /// Seconds spent waiting between polls since the last event (or the start).
    private var quiet: Double = 0

    /// 50 ms, held for a minute after an event, then +50 ms per idle poll up to 200 ms.
    public init(minimum: Double = 0.05, step: Double = 0.05, maximum: Double = 0.2, hold: Double = 60) {
        self.minimum = minimum
        self.step = step
        self.maximum = max(minimum, maximum)
        self.hold = hold
        current = minimum
    }

    /// Records a poll's outcome and returns the wait before the next one.
    @discardableResult
    public mutating func record(activity: Bool) -> Double {
        if activity {
            quiet = 0
            current = minimum
        } else {
            quiet += current
            current = quiet < hold ? minimum : min(maximum, current + step)
        }
        return current
    }
}
