import RelayCore

/// What other threads do to a session: stop it, or cut its upload for a newer one of the same
/// file. They touch only the sockets (whose shutdown is safe from any thread) and
/// ``FTPSessionDataState``.
extension FTPSession {
    /// Stops the session from another thread: its blocked reads end at once.
    func interrupt() {
        control.shutdown()
        dataState.current.open?.shutdown()
    }

    func setOpenData(_ connection: FTPStream?) {
        dataState.withLockedValue { $0.open = connection }
    }

    /// Ends this session's upload for a newer one of the same file (the camera's retry on a new
    /// connection): it is dead, or the camera would not have sent the file again.
    func cutForRetry() {
        dataState.withLockedValue { $0.cutByRetry = true }
        interrupt()
    }

    /// Whether a newer upload of the same file cut this session's.
    var wasCutForRetry: Bool { dataState.current.cutByRetry }
}

/// The part of a session other threads touch: the data connection open now (for
/// ``FTPSession/interrupt()`` to shut down) and whether a newer upload of the same file cut it.
struct FTPSessionDataState: Sendable {
    var open: FTPStream?
    var cutByRetry = false
}
