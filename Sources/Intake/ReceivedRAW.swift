import Foundation
import PhotoMetadata

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A received RAW judged by its structure as it is on disk (``RAWStructure``): whether its
/// directories and boxes point past what arrived. The FTP receiver and the HTTP inbox both ask
/// before they commit one.
public enum ReceivedRAW {
    /// The verdict on the `bytes` long file open as `fd` (read with pread, the offset untouched).
    public static func verdict(_ fd: Int32, bytes: Int64) -> RAWStructure.Verdict {
        RAWStructure.verdict(size: bytes) { offset, count in
            var buffer = [UInt8](repeating: 0, count: count)
            let got = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
            return got < 0 ? nil : Array(buffer.prefix(got))
        }
    }

    /// The verdict on the file at `path`; `.unreadable` when it cannot be opened.
    public static func verdict(path: String) -> RAWStructure.Verdict {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .unreadable }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .unreadable }
        return verdict(fd, bytes: Int64(info.st_size))
    }
}
