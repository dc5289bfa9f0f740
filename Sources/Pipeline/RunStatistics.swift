import Foundation

/// Counters of one `relay run`, shared by the source, the workers and the display.
public final class RunStatistics: @unchecked Sendable {
    /// A consistent copy of the counters at one moment.
    public struct Snapshot: Sendable, Equatable {
        public var queued = 0
        public var uploading = 0
        public var delivered = 0
        public var failed = 0
        public var retries = 0
        public var skipped = 0
        /// Upload rate over the last few seconds, in bytes per second.
        public var bytesPerSecond: Double = 0
        /// Seconds from the shutter (or file time) to the gallery's 2xx, for the latest photo.
        public var lastShutterToGallery: Double?
        public var spoolFull = false
        /// What each source is doing ("Canon EOS R50 connected", "camera: reconnecting in 4s…"),
        /// in the order the sources first reported.
        public var sourceStatus: [String] = []

        public init() {}
    }

    private let lock = NSLock()
    private var counters = Snapshot()
    private var recentBytes: [(at: Date, bytes: Int64)] = []
    private var statusBySource: [(source: String, status: String)] = []
    private let window: TimeInterval = 10

    public init() {}

    public func update(_ change: (inout Snapshot) -> Void) {
        lock.withLock { change(&counters) }
    }

    /// Records bytes sent by one finished attempt, for the rate.
    public func addSent(_ bytes: Int64, at date: Date = Date()) {
        lock.withLock {
            recentBytes.append((date, bytes))
        }
    }

    /// Replaces what `source` is doing, for the progress line.
    public func setSourceStatus(_ status: String, for source: String) {
        lock.withLock {
            if let index = statusBySource.firstIndex(where: { $0.source == source }) {
                statusBySource[index].status = status
            } else {
                statusBySource.append((source, status))
            }
        }
    }

    public func snapshot(at now: Date = Date()) -> Snapshot {
        lock.withLock {
            recentBytes.removeAll { now.timeIntervalSince($0.at) > window }
            var copy = counters
            copy.sourceStatus = statusBySource.map(\.status)
            copy.bytesPerSecond = Double(recentBytes.reduce(Int64(0)) { $0 + $1.bytes }) / window
            return copy
        }
    }
}

/// Formats the live progress line (pure, so its wording is tested).
public enum ProgressLine {
    public static func format(_ s: RunStatistics.Snapshot) -> String {
        var line = "queued \(s.queued) · uploading \(s.uploading) · done \(s.delivered) · failed \(s.failed)"
        line += String(format: " · %.1f MB/s", s.bytesPerSecond / 1_000_000)
        if let latency = s.lastShutterToGallery {
            line += String(format: " · last shutter→gallery %.2fs", latency)
        }
        if s.retries > 0 { line += " · retries \(s.retries)" }
        if s.skipped > 0 { line += " · skipped \(s.skipped)" }
        if s.spoolFull { line += " · spool full, waiting" }
        for status in s.sourceStatus { line += " · \(status)" }
        return line
    }
}
