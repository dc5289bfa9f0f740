import Foundation
import SocketIO

/// Whether the simulated camera is awake. "sleep N" on stdin puts it to sleep for N seconds: the
/// client is dropped and the camera stops listening (connections are refused), as a body that
/// powers its Wi-Fi down does; then it wakes with the same card, numbering and serial.
///
/// `@unchecked Sendable`: the only state, `asleepUntil`, is read and written under `lock`.
final class SimPower: @unchecked Sendable {
    private let lock = NSLock()
    private var asleepUntil: Double = 0

    func sleep(seconds: Double) {
        lock.withLock { asleepUntil = SocketClock.now() + seconds }
    }

    /// Seconds left asleep, 0 when awake.
    var secondsAsleep: Double {
        lock.withLock { max(0, asleepUntil - SocketClock.now()) }
    }
}
