import Foundation
import RelayCore

/// A socket descriptor released exactly once: the connection, listener and UDP socket each own
/// one. Its open state is reachable only under its box's lock, so that `close()` is safe to call
/// twice and a call after it fails with `SocketError.closed` instead of using a number the system
/// may have reused.
final class SocketDescriptor: Sendable {
    private let fd: Int32
    /// Whether `fd` is still this object's: false once closed or released.
    private let isOpen = LockedBox(true)

    init(_ fd: Int32) { self.fd = fd }

    /// The descriptor, or `SocketError.closed` after `close()`.
    func get() throws -> Int32 {
        guard isOpen.current else { throw SocketError.closed }
        return fd
    }

    /// Runs `body` with the descriptor while it is open (under the lock, so it is not closed
    /// meanwhile): only calls that return at once (an option set, a shutdown).
    func whileOpen(_ body: (Int32) -> Void) {
        isOpen.withLockedValue { isOpen in
            if isOpen { body(fd) }
        }
    }

    var isClosed: Bool {
        !isOpen.current
    }

    /// Gives the descriptor up without closing it (to a library that will own and close it):
    /// from here on this object acts as closed.
    func release() throws -> Int32 {
        guard takeOpen() else { throw SocketError.closed }
        return fd
    }

    /// Closed outside the lock: once marked closed, nothing here hands the number out again.
    func close() {
        if takeOpen() { Glibc_or_Darwin_close(fd) }
    }

    /// Marks the descriptor closed; true for the one caller that found it open.
    private func takeOpen() -> Bool {
        isOpen.withLockedValue { isOpen in
            defer { isOpen = false }
            return isOpen
        }
    }
}
