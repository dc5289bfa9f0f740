import RunEvents

/// What `/healthz` answers: 200 while the run takes and sends photos, 503 before it has started
/// and once it is stopping (a supervisor then restarts nothing that is still shutting down on
/// purpose; `systemd` and load balancers read the status code alone). A camera that is away, a
/// gallery that is unreachable or a full spool are states relay waits out by itself: restarting
/// would not help, so they stay 200 and are named in the text.
public struct RunHealth: Sendable, Equatable {
    public var isHealthy: Bool
    /// "ok", or the reason, then what is worth knowing.
    public var text: String

    public init(_ state: RunState) {
        guard state.startedAt != nil else {
            isHealthy = false
            text = "starting: the run has not begun taking photos"
            return
        }
        guard !state.stopping else {
            isHealthy = false
            text = "stopping: the run is ending"
            return
        }
        isHealthy = true
        var notes: [String] = []
        for source in state.sources {
            if source.spoolFull { notes.append("\(source.label): the spool is full, photos wait on the camera") }
            if source.camera != nil && !source.connected { notes.append("\(source.label): camera not connected") }
        }
        for destination in state.destinations where !destination.reachable {
            notes.append("\(destination.label): unreachable, photos wait in the spool")
        }
        text = (["ok"] + notes).joined(separator: "\n")
    }
}
