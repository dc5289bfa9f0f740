import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A self-pipe: another thread wakes a thread blocked in `poll(2)` on other descriptors too
/// (inotify, a socket) by writing a byte, so a stop or a change is seen at once instead of at
/// the waiter's next timeout.
public final class WakePipe: Sendable {
    /// Polled for `POLLIN` beside the waiter's own descriptors; ``drain()`` it once readable.
    public let readEnd: Int32
    private let writeEnd: Int32

    /// Throws when no pipe can be had (the process is out of file descriptors).
    public init() throws(Errno) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw Errno.current("pipe") }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    /// Makes ``readEnd`` readable (a full pipe already is).
    public func wake() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Empties the pipe, so that the next ``wake()`` is seen afresh.
    public func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while buffer.withUnsafeMutableBytes({ read(readEnd, $0.baseAddress, $0.count) }) > 0 {}
    }
}
