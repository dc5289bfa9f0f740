import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Turns signals (SIGINT, SIGTERM, …) into calls on a thread of their own, from the moment
/// `watch` returns.
///
/// libdispatch's signal sources register asynchronously on Linux: between `resume()` and the
/// registration a signal met the SIG_IGN that has to be set first and was lost, so a Ctrl-C (or a
/// supervisor's SIGTERM) right after the start never stopped relay. Here the handler is installed
/// with `sigaction` before `watch` returns; it only writes the signal's number to a pipe (a write
/// is async-signal-safe), and a thread reads the pipe and calls the handler.
public enum SignalWatch {
    /// Calls `handler` with the signal's number for each of `signals` that arrives from now on.
    /// Later calls add handlers; a signal goes to every handler watching it.
    public static func watch(_ signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        let reader = registry.withLockedValue { registry -> Int32? in
            registry.handlers.append((Set(signals), handler))
            guard signalPipeWrite < 0 else { return nil }
            var fds: [Int32] = [-1, -1]
            guard pipe(&fds) == 0 else { return nil }
            _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
            // A handler must never block: with the pipe full, a signal more is dropped.
            _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)
            signalPipeWrite = fds[1]
            return fds[0]
        }
        for number in signals {
            var action = sigaction()
            #if canImport(Glibc)
                action.__sigaction_handler.sa_handler = relaySignalHandler
            #else
                action.__sigaction_u.__sa_handler = relaySignalHandler
            #endif
            action.sa_flags = SA_RESTART
            sigemptyset(&action.sa_mask)
            sigaction(number, &action, nil)
        }
        guard let reader else { return }
        Thread.detachNewThread {
            var byte: UInt8 = 0
            while true {
                let count = read(reader, &byte, 1)
                if count < 0 && errno == EINTR { continue }
                guard count == 1 else { return }
                let number = Int32(byte)
                let handlers = registry.withLockedValue { $0.handlers.filter { $0.signals.contains(number) }.map(\.handler) }
                for handler in handlers { handler(number) }
            }
        }
    }

    private struct Registry {
        var handlers: [(signals: Set<Int32>, handler: @Sendable (Int32) -> Void)] = []
    }

    private static let registry = LockedBox(Registry())
}

/// The pipe's write end, read by the signal handler (which may touch nothing but this).
nonisolated(unsafe) private var signalPipeWrite: Int32 = -1

private func relaySignalHandler(_ number: Int32) {
    let saved = errno
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(signalPipeWrite, &byte, 1)
    errno = saved
}
