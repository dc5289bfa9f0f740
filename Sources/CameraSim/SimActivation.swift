import Foundation

/// How many sessions the body still serves before it must be activated again on the body. A
/// Sony in "Send to Computer" or PC Remote serves one connection, then shuts down or refuses
/// (libgphoto2 issue 1218); a line "activate" on stdin stands for the photographer pressing
/// the button again. Only sessions that completed the PTP/IP handshake count, so a bare TCP
/// connect (a discovery probe) costs nothing, unless `--probe-spends-activation` makes it count
/// (a body that serves one connection at a time).
///
/// `@unchecked Sendable`: `served` and `shutDown` are read and written under `lock`; `perActivation` is immutable after init.
final class SimActivation: @unchecked Sendable {
    private let lock = NSLock()
    /// nil: no limit.
    private let perActivation: Int?
    private var served = 0
    private var shutDown = false

    init(sessionsPerActivation: Int?) {
        perActivation = sessionsPerActivation.flatMap { $0 == 0 ? nil : $0 }
    }

    /// Whether a new session may start now.
    var mayServe: Bool {
        lock.withLock { !shutDown && (perActivation.map { served < $0 } ?? true) }
    }

    /// A session ended; `shutDown` when the client told the body to power off after it.
    func sessionEnded(shutDown: Bool) {
        lock.withLock {
            served += 1
            if shutDown { self.shutDown = true }
        }
    }

    /// The photographer activated the body again.
    func activate() {
        lock.withLock {
            served = 0
            shutDown = false
        }
    }
}
