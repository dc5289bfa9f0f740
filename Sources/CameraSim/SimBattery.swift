import Foundation
import RelayCore

/// The simulated body's battery, shared by every session like the card: it starts at
/// `--battery` and loses `--battery-drain` with each frame shot.
///
public final class SimBattery: Sendable {
    private let level: LockedBox<Double>
    private let drainPerShot: Double

    init(_ options: SimResourceOptions) {
        level = LockedBox(Double(options.batteryPercent))
        drainPerShot = options.drainPerShot
    }

    /// The level a body reports: whole percent.
    public var percent: Int {
        Int(level.current.rounded())
    }

    /// One frame was shot.
    func frameShot() {
        level.withLockedValue { $0 = max(0, $0 - drainPerShot) }
    }
}
