import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Crash-safe file replacement: write a temporary file in the same folder, fsync it, rename it
/// over the target, fsync the folder (``Durable``). A reader, a restart after kill -9, or one
/// after a power cut sees the old file or the new one, never a torn mix.
public enum AtomicFile {
    /// Replaces `url` with `data`; the file gets `mode` (0600 by default: configs may hold tokens).
    public static func write(_ data: Data, to url: URL, mode: mode_t = 0o600) throws(StateFileError) {
        let folder = url.deletingLastPathComponent()
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString.prefix(8)).tmp")
        do {
            try writeAndSync(data, to: temporary.path, mode: mode)
        } catch {
            unlink(temporary.path)
            throw .writeFailed(path: url.path, reason: "\(error)")
        }
        do {
            try Durable.rename(temporary.path, to: url.path)
        } catch {
            unlink(temporary.path)
            throw .writeFailed(path: url.path, reason: "\(error)")
        }
    }

    /// Writes `data` to a new file at `path` and flushes it to stable storage before returning.
    public static func writeAndSync(_ data: Data, to path: String, mode: mode_t = 0o600) throws(Errno) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode)
        guard fd >= 0 else { throw Errno.current("open") }
        defer { close(fd) }
        try writeAll(fd, data)
        try Durable.sync(fd)
    }

    /// Writes every byte of `data` to `fd`, resuming after short writes and EINTR.
    public static func writeAll(_ fd: Int32, _ data: Data) throws(Errno) {
        if let failure = data.withUnsafeBytes({ write(fd, all: $0) }) { throw failure }
    }

    /// Writes every byte of `bytes` to `fd`, straight from the array's storage.
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(Errno) {
        if let failure = bytes.withUnsafeBytes({ write(fd, all: $0) }) { throw failure }
    }

    private static func write(_ fd: Int32, all raw: UnsafeRawBufferPointer) -> Errno? {
        guard let base = raw.baseAddress else { return nil }
        var offset = 0
        while offset < raw.count {
            let written = Foundation.write(fd, base + offset, raw.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return Errno.current("write")
            }
            offset += written
        }
        return nil
    }
}

/// A failed system call, with the call's name and the C library's text for errno.
public struct Errno: Error, Sendable, Equatable, CustomStringConvertible {
    public let call: String
    public let code: Int32

    public init(call: String, code: Int32) {
        self.call = call
        self.code = code
    }

    /// The current `errno` for the named call.
    public static func current(_ call: String) -> Errno {
        Errno(call: call, code: errno)
    }

    /// True when the failure means the disk (or quota) is full.
    public var isDiskFull: Bool { code == ENOSPC || code == EDQUOT }

    public var description: String {
        "\(call): \(String(cString: strerror(code)))"
    }
}
