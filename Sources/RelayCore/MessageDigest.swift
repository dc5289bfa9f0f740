import COpenSSL
import Foundation

/// A digest fed in pieces, so a 25 MB photo is hashed without holding it in memory.
public protocol MessageDigest: Sendable {
    init()
    /// Adds the next bytes of the message.
    mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8
    /// The digest of everything added so far (the digest itself can still grow).
    func finish() -> [UInt8]
}

extension MessageDigest {
    /// The digest as lower-case hex digits (what `sha256sum` and `sha1sum` print).
    public func hex() -> String {
        finish().map { String(format: "%02x", $0) }.joined()
    }

    /// The digest in base64 (what S3's `x-amz-checksum-sha256` carries).
    public func base64() -> String {
        Data(finish()).base64EncodedString()
    }

    /// The digest of a whole file, read 1 MB at a time; with `prefix`, of the body sent in its
    /// place (the stamp's header, then the file after the bytes it replaces).
    public static func of(fileAt url: URL, prefix: BodyPrefix? = nil) throws -> Self {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var digest = Self()
        if let prefix {
            digest.update(prefix.bytes)
            try handle.seek(toOffset: UInt64(prefix.replacing))
        }
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            chunk.withUnsafeBytes { digest.update($0.bindMemory(to: UInt8.self)) }
        }
        return digest
    }
}

/// SHA-256 through libcrypto (OpenSSL's EVP interface). relay needs it for the S3 checksum
/// header (a corrupted body is refused by the store), FTP's temporary-name checks and the
/// manifest; libcrypto uses the CPU's SHA instructions where it has them.
public struct SHA256Digest: MessageDigest {
    private var digest = EVPDigest(EVP_sha256())

    public init() {}

    public mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 { digest.update(bytes) }

    /// The 32-byte digest.
    public func finish() -> [UInt8] { digest.finish() }
}

/// SHA-1 through libcrypto: Immich names an asset by the SHA-1 of its bytes (its
/// `x-immich-checksum` header and `bulk-upload-check`), so relay must compute it of what it sends.
public struct SHA1Digest: MessageDigest {
    private var digest = EVPDigest(EVP_sha1())

    public init() {}

    public mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 { digest.update(bytes) }

    /// The 20-byte digest.
    public func finish() -> [UInt8] { digest.finish() }
}

/// MD5 through libcrypto: a simple PUT's S3 ETag is the MD5 of its bytes, the only check of an
/// inbox object a store without checksums gives a desk that downloads it.
public struct MD5Digest: MessageDigest {
    private var digest = EVPDigest(EVP_md5())

    public init() {}

    public mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 { digest.update(bytes) }

    /// The 16-byte digest.
    public func finish() -> [UInt8] { digest.finish() }
}

/// One running libcrypto EVP digest of the algorithm it was made with.
///
/// `@unchecked Sendable`: `context` is copy-on-write: `update` mutates it only when uniquely
/// referenced, `finish` only copies it.
struct EVPDigest: @unchecked Sendable {
    /// The running EVP context; copied before a write when the value was copied.
    private final class Context {
        let pointer: OpaquePointer

        init(_ algorithm: OpaquePointer?) {
            guard let pointer = EVP_MD_CTX_new(), EVP_DigestInit_ex(pointer, algorithm, nil) == 1 else {
                fatalError("libcrypto cannot make a digest context")
            }
            self.pointer = pointer
        }

        init(copying other: Context) {
            guard let pointer = EVP_MD_CTX_new(), EVP_MD_CTX_copy_ex(pointer, other.pointer) == 1 else {
                fatalError("libcrypto cannot copy a digest context")
            }
            self.pointer = pointer
        }

        deinit { EVP_MD_CTX_free(pointer) }
    }

    private var context: Context

    init(_ algorithm: OpaquePointer?) {
        context = Context(algorithm)
    }

    mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        if !isKnownUniquelyReferenced(&context) { context = Context(copying: context) }
        let pointer = context.pointer
        let handled = bytes.withContiguousStorageIfAvailable { buffer in
            _ = EVP_DigestUpdate(pointer, buffer.baseAddress, buffer.count)
        }
        if handled == nil {
            let copy = Array(bytes)
            copy.withUnsafeBytes { _ = EVP_DigestUpdate(pointer, $0.baseAddress, $0.count) }
        }
    }

    func finish() -> [UInt8] {
        let copy = Context(copying: context)
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(copy.pointer, &digest, &length) == 1 else { fatalError("libcrypto cannot finish a digest") }
        return Array(digest.prefix(Int(length)))
    }
}
