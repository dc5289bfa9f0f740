import Foundation

/// SHA-256 (FIPS 180-4), fed in pieces so a 25 MB photo is hashed without holding it in memory.
/// relay needs it for the S3 checksum header (a corrupted body is refused by the store) and for
/// the manifest; Linux has no CryptoKit and the project takes no package dependencies.
public struct SHA256Digest: Sendable {
    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    private var h: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    public init() {}

    /// Adds the next bytes of the message.
    public mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        pending.append(contentsOf: bytes)
        let whole = pending.count - pending.count % 64
        guard whole > 0 else { return }
        length &+= UInt64(whole)
        pending.withUnsafeBufferPointer { buffer in
            for block in stride(from: 0, to: whole, by: 64) { compress(buffer, at: block) }
        }
        pending.removeFirst(whole)
    }

    /// The 32-byte digest of everything added so far.
    public func finish() -> [UInt8] {
        var copy = self
        let bitLength = (copy.length &+ UInt64(copy.pending.count)) &* 8
        var tail: [UInt8] = [0x80]
        while (copy.pending.count + tail.count) % 64 != 56 { tail.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        copy.update(tail)
        return copy.h.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (24 - 8 * $0)) } }
    }

    /// The digest as 64 lower-case hex digits (what `sha256sum` prints).
    public func hex() -> String {
        finish().map { String(format: "%02x", $0) }.joined()
    }

    /// The digest in base64 (what S3's `x-amz-checksum-sha256` carries).
    public func base64() -> String {
        Data(finish()).base64EncodedString()
    }

    /// The digest of a whole file, read 1 MB at a time.
    public static func of(fileAt url: URL) throws -> SHA256Digest {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var digest = SHA256Digest()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { digest.update(chunk) }
        return digest
    }

    private mutating func compress(_ buffer: UnsafeBufferPointer<UInt8>, at block: Int) {
        var w = [UInt32](repeating: 0, count: 64)
        for i in 0..<16 {
            let j = block + i * 4
            w[i] = UInt32(buffer[j]) << 24 | UInt32(buffer[j + 1]) << 16 | UInt32(buffer[j + 2]) << 8 | UInt32(buffer[j + 3])
        }
        for i in 16..<64 {
            let s0 = Self.rotr(w[i - 15], 7) ^ Self.rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
            let s1 = Self.rotr(w[i - 2], 17) ^ Self.rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
            w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
        }
        var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
        for i in 0..<64 {
            let t1 = hh &+ (Self.rotr(e, 6) ^ Self.rotr(e, 11) ^ Self.rotr(e, 25)) &+ ((e & f) ^ (~e & g)) &+ Self.k[i] &+ w[i]
            let t2 = (Self.rotr(a, 2) ^ Self.rotr(a, 13) ^ Self.rotr(a, 22)) &+ ((a & b) ^ (a & c) ^ (b & c))
            (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
        }
        h[0] &+= a; h[1] &+= b; h[2] &+= c; h[3] &+= d
        h[4] &+= e; h[5] &+= f; h[6] &+= g; h[7] &+= hh
    }

    private static func rotr(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value >> count) | (value << (32 - count))
    }
}
