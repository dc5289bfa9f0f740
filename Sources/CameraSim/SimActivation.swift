import Foundation
import RelayCore

/// How many sessions the body still serves before it must be activated again on the body. A
/// Sony in "Send to Computer" or PC Remote serves one connection, then shuts down or refuses
/// (libgphoto2 issue 1218); a line "activate" on stdin stands for the photographer pressing
/// the button again. Only sessions that completed the PTP/IP handshake count, so a bare TCP
/// connect (a discovery probe) costs nothing, unless `--probe-spends-activation` makes it count
/// (a body that serves one connection at a time).
final class SimActivation: Sendable {
    /// nil: no limit.
    private let perActivation: Int?
    /// Sessions served since the last activation, and whether a client powered the body off.
    private let state = LockedBox((served: 0, shutDown: false))

    init(sessionsPerActivation: Int?) {
        perActivation = sessionsPerActivation.flatMap { $0 == 0 ? nil : $0 }
    }

    /// Whether a new session may start now.
    var mayServe: Bool {
        state.withLockedValue { state in !state.shutDown && (perActivation.map { state.served < $0 } ?? true) }
    }

    /// A session ended; `shutDown` when the client told the body to power off after it.
    func sessionEnded(shutDown: Bool) {
        state.withLockedValue { state in
            state.served += 1
            if shutDown { state.shutDown = true }
        }
    }

    /// The photographer activated the body again.
    func activate() {
        state.withLockedValue { $0 = (0, false) }
    }
}
