import COpenSSL
import FTPWire
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SHA-256 of a received file (libcrypto), so a photo a sender sends again after a lost answer
/// (an FTP 226, an HTTP 201) is recognised by its content and not delivered twice; with its size,
/// last bytes and JPEG structure. Fed as the upload arrives, so that the end of an upload does not read the file
/// again (``sha256(of:)`` does, for an upload resumed from a partial file).
public final class ContentDigest {
    /// What one read of a received file tells.
    public struct Content: Sendable {
        public var hex: String
        public var bytes: Int64
        /// The last 64 bytes, for ``JPEGEnd``.
        public var tail: [UInt8]
        /// Its structure read as a JPEG's.
        public var jpeg: JPEGStructure.Verdict

        /// Whether a file sent as a JPEG is whole: by its structure, or, for one whose
        /// structure relay cannot follow, by its end marker.
        public var isWholeJPEG: Bool {
            switch jpeg {
            case .complete: true
            case .incomplete: false
            case .unreadable: JPEGEnd.isComplete(tail: tail)
            }
        }
    }

    private let context: OpaquePointer
    /// Bytes fed so far.
    public private(set) var bytes: Int64 = 0
    private var tail: [UInt8] = []
    private var structure = JPEGStructure()
    private var failed = false

    public init?() {
        guard let context = EVP_MD_CTX_new() else { return nil }
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            EVP_MD_CTX_free(context)
            return nil
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    /// The next bytes of the file.
    public func feed(_ chunk: UnsafeRawBufferPointer) {
        guard !chunk.isEmpty else { return }
        if EVP_DigestUpdate(context, chunk.baseAddress, chunk.count) != 1 { failed = true }
        structure.feed(chunk)
        tail = Array((tail + chunk.suffix(64)).suffix(64))
        bytes += Int64(chunk.count)
    }

    /// What was fed, once the file is complete; nil if libcrypto failed.
    public func finish() -> Content? {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard !failed, EVP_DigestFinal_ex(context, &digest, &length) == 1 else { return nil }
        return Content(
            hex: digest.prefix(Int(length)).map { String(format: "%02x", $0) }.joined(), bytes: bytes, tail: tail,
            jpeg: structure.verdict)
    }

    /// The digest of the whole file behind `fd` (read with pread, so the offset is untouched);
    /// nil when it cannot be read.
    public static func sha256(of fd: Int32) -> Content? {
        guard let digest = ContentDigest() else { return nil }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(digest.bytes)) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { break }
            buffer.withUnsafeBytes { digest.feed(UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
        }
        return digest.finish()
    }
}
