import Foundation

/// The simulated body's battery, shared by every session like the card: it starts at
/// `--battery` and loses `--battery-drain` with each frame shot.
///
/// `@unchecked Sendable`: `level` is guarded by `lock`.
public final class SimBattery: @unchecked Sendable {
    private let lock = NSLock()
    private var level: Double
    private let drainPerShot: Double

    init(_ options: SimResourceOptions) {
        level = Double(options.batteryPercent)
        drainPerShot = options.drainPerShot
    }

    /// The level a body reports: whole percent.
    public var percent: Int {
        lock.withLock { Int(level.rounded()) }
    }

    /// One frame was shot.
    func frameShot() {
        lock.withLock { level = max(0, level - drainPerShot) }
    }
}
