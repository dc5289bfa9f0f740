import Foundation

/// A cumulative histogram with fixed upper bounds, as Prometheus keeps one.
public struct Histogram: Sendable, Equatable {
    /// Upper bounds in ascending order; a last `+Inf` bucket is implied.
    public let bounds: [Double]
    /// Observations at or below each bound (not cumulative; see `cumulativeCounts`).
    public private(set) var counts: [Int]
    public private(set) var count = 0
    public private(set) var sum = 0.0

    public init(bounds: [Double]) {
        self.bounds = bounds
        counts = Array(repeating: 0, count: bounds.count)
    }

    public mutating func observe(_ value: Double) {
        guard value.isFinite else { return }
        count += 1
        sum += value
        if let index = bounds.firstIndex(where: { value <= $0 }) { counts[index] += 1 }
    }

    /// Observations at or below each bound, then all of them (the `+Inf` bucket).
    public var cumulativeCounts: [Int] {
        var running = 0
        return counts.map {
            running += $0
            return running
        } + [count]
    }

    /// Seconds, from a tenth of a second to a few minutes: uploads and shutter-to-gallery times.
    public static let seconds = Histogram(bounds: [0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 30, 60, 300])
}
