import Foundation

/// What a run does on a clock while it runs and while it stops: systemd's watchdog wants a ping
/// at least this often, whatever happens. Without one, the run's main loop waits only for events.
public struct Heartbeat {
    public var interval: TimeInterval
    public var beat: () -> Void

    public init(every interval: TimeInterval, _ beat: @escaping () -> Void) {
        self.interval = interval
        self.beat = beat
    }
}
