import Foundation
import RelayCore
import SocketIO

/// Whether the simulated camera is awake. "sleep N" on stdin puts it to sleep for N seconds: the
/// client is dropped and the camera stops listening (connections are refused), as a body that
/// powers its Wi-Fi down does; then it wakes with the same card, numbering and serial. "sleep N
/// before CODE" does so when the next operation CODE arrives, before it is carried out: a test
/// then knows what the client was waiting for when the camera went.
final class SimPower: Sendable {
    private let asleepUntil = LockedBox<Double>(0)
    /// A sleep waiting for its operation (its code) to arrive.
    private let armed = LockedBox<(code: UInt16, seconds: Double)?>(nil)

    func sleep(seconds: Double) {
        asleepUntil.withLockedValue { $0 = SocketClock.now() + seconds }
    }

    func sleep(seconds: Double, before code: UInt16) {
        armed.withLockedValue { $0 = (code, seconds) }
    }

    /// Falls asleep if a sleep waits for the operation `code` (true: do not carry it out).
    func sleepsBefore(_ code: UInt16) -> Bool {
        guard
            let seconds = armed.withLockedValue({ armed -> Double? in
                guard let pending = armed, pending.code == code else { return nil }
                armed = nil
                return pending.seconds
            })
        else { return false }
        sleep(seconds: seconds)
        return true
    }

    /// Seconds left asleep, 0 when awake.
    var secondsAsleep: Double {
        max(0, asleepUntil.current - SocketClock.now())
    }
}
