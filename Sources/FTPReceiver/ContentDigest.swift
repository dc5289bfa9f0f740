import COpenSSL
import Foundation
import FTPWire
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SHA-256 of a received file (libcrypto), so a photo the camera sends again after a lost 226 is
/// recognised by its content and not delivered twice.
enum ContentDigest {
    /// What one read of a received file tells.
    struct Content {
        var hex: String
        var bytes: Int64
        /// The last 64 bytes, for ``JPEGEnd``.
        var tail: [UInt8]
        /// Its structure read as a JPEG's.
        var jpeg: JPEGStructure.Verdict

        /// Whether a file sent as a JPEG is whole: by its structure, or, for one whose
        /// structure relay cannot follow, by its end marker.
        var isWholeJPEG: Bool {
            switch jpeg {
            case .complete: true
            case .incomplete: false
            case .unreadable: JPEGEnd.isComplete(tail: tail)
            }
        }
    }

    /// The digest of the whole file behind `fd` (read with pread, so the offset is untouched),
    /// with its size, its last bytes and its JPEG structure; nil when it cannot be read.
    static func sha256(of fd: Int32) -> Content? {
        guard let context = EVP_MD_CTX_new() else { return nil }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset: Int64 = 0
        var tail: [UInt8] = []
        var structure = JPEGStructure()
        while true {
            let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(offset)) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { break }
            guard buffer.withUnsafeBytes({ EVP_DigestUpdate(context, $0.baseAddress, count) }) == 1 else { return nil }
            buffer.withUnsafeBytes { structure.feed(UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
            tail = Array((tail + buffer[max(0, count - 64)..<count]).suffix(64))
            offset += Int64(count)
        }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &digest, &length) == 1 else { return nil }
        return Content(hex: digest.prefix(Int(length)).map { String(format: "%02x", $0) }.joined(), bytes: offset, tail: tail,
                       jpeg: structure.verdict)
    }
}
