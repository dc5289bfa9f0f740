import Foundation

/// A socket descriptor released exactly once: the connection, listener and UDP socket each own
/// one. Its open state is guarded by a lock so that `close()` is safe to call twice and a call
/// after it fails with `SocketError.closed` instead of using a number the system may have reused.
///
/// `@unchecked Sendable`: `isOpen` is read and written under `lock`; `fd` is immutable after init.
final class SocketDescriptor: @unchecked Sendable {
    private let fd: Int32
    private let lock = NSLock()
    private var isOpen = true

    init(_ fd: Int32) { self.fd = fd }

    /// The descriptor, or `SocketError.closed` after `close()`.
    func get() throws -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        guard isOpen else { throw SocketError.closed }
        return fd
    }

    /// Runs `body` with the descriptor while it is open (under the lock, so it is not closed meanwhile).
    func whileOpen(_ body: (Int32) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        if isOpen { body(fd) }
    }

    var isClosed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return !isOpen
    }

    /// Gives the descriptor up without closing it (to a library that will own and close it):
    /// from here on this object acts as closed.
    func release() throws -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        guard isOpen else { throw SocketError.closed }
        isOpen = false
        return fd
    }

    func close() {
        lock.lock()
        defer { lock.unlock() }
        if isOpen {
            isOpen = false
            Glibc_or_Darwin_close(fd)
        }
    }
}
