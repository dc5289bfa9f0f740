import COpenSSL
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SHA-256 of a received file (libcrypto), so a photo the camera sends again after a lost 226 is
/// recognised by its content and not delivered twice.
enum ContentDigest {
    /// The digest of the whole file behind `fd` (read with pread, so the offset is untouched),
    /// with its size and its last bytes (for ``JPEGEnd``); nil when it cannot be read.
    static func sha256(of fd: Int32) -> (hex: String, bytes: Int64, tail: [UInt8])? {
        guard let context = EVP_MD_CTX_new() else { return nil }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset: Int64 = 0
        var tail: [UInt8] = []
        while true {
            let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(offset)) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { break }
            guard buffer.withUnsafeBytes({ EVP_DigestUpdate(context, $0.baseAddress, count) }) == 1 else { return nil }
            tail = Array((tail + buffer[max(0, count - 64)..<count]).suffix(64))
            offset += Int64(count)
        }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &digest, &length) == 1 else { return nil }
        return (digest.prefix(Int(length)).map { String(format: "%02x", $0) }.joined(), offset, tail)
    }
}
