import Foundation
import RelayCore
import SocketIO

/// Whether the simulated camera is awake. "sleep N" on stdin puts it to sleep for N seconds: the
/// client is dropped and the camera stops listening (connections are refused), as a body that
/// powers its Wi-Fi down does; then it wakes with the same card, numbering and serial.
final class SimPower: Sendable {
    private let asleepUntil = LockedBox<Double>(0)

    func sleep(seconds: Double) {
        asleepUntil.withLockedValue { $0 = SocketClock.now() + seconds }
    }

    /// Seconds left asleep, 0 when awake.
    var secondsAsleep: Double {
        max(0, asleepUntil.current - SocketClock.now())
    }
}
