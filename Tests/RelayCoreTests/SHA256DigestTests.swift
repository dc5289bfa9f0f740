import Foundation
import RelayCore
import XCTest

final class SHA256DigestTests: XCTestCase {
    private func hex(_ text: String) -> String {
        var digest = SHA256Digest()
        digest.update(Array(text.utf8))
        return digest.hex()
    }

    /// FIPS 180-4 example vectors, and a message whose padding spills into a second block.
    func testKnownVectors() {
        XCTAssertEqual(hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(
            hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    /// Fed in uneven pieces, the digest is the one of the whole; base64 is the same 32 bytes.
    func testPiecewiseEqualsWhole() {
        let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        var whole = SHA256Digest()
        whole.update(bytes)
        var pieces = SHA256Digest()
        var index = 0
        for size in [1, 63, 64, 65, 127, 1000, 3000] {
            pieces.update(bytes[index..<index + size])
            index += size
        }
        pieces.update(bytes[index...])
        XCTAssertEqual(pieces.hex(), whole.hex())
        XCTAssertEqual(Data(base64Encoded: whole.base64()).map(Array.init), whole.finish())
    }

    /// A million 'a's (the FIPS long-message vector), through a file read in 1 MB chunks.
    func testFileDigest() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sha-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(repeating: UInt8(ascii: "a"), count: 1_000_000).write(to: url)
        XCTAssertEqual(try SHA256Digest.of(fileAt: url).hex(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// SHA-1 (FIPS 180-4 vectors), what Immich names an asset by; and of a file whose header is
    /// sent replaced (a stamp's prefix), the digest of the body sent, not of the file.
    func testSHA1AndThePrefixedBody() throws {
        func sha1(_ text: String) -> String {
            var digest = SHA1Digest()
            digest.update(Array(text.utf8))
            return digest.hex()
        }
        XCTAssertEqual(sha1("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d")
        XCTAssertEqual(sha1(""), "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sha1-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data("HEADERbody".utf8).write(to: url)
        let prefix = BodyPrefix(bytes: Array("abc".utf8), replacing: 10)
        XCTAssertEqual(try SHA1Digest.of(fileAt: url, prefix: prefix).hex(), sha1("abc"))
        XCTAssertEqual(try SHA1Digest.of(fileAt: url, prefix: BodyPrefix(bytes: Array("NEW".utf8), replacing: 6)).hex(), sha1("NEWbody"))
    }
}
