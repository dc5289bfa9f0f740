import Foundation
import RelayCore

/// Synthetic JPEGs for upload tests, shaped as a camera's are: SOI, a JFIF APP0, a quantization
/// table, a baseline frame and one scan header, deterministic entropy-coded filler (no FF byte, so
/// no marker inside it), EOI. Not decodable into a picture, but every structure check (relay's
/// `JPEGStructure`, the gallery's) reads it as a whole image, and every seed is a different photo.
public enum JPEGFixture {
    /// SOI, APP0 (JFIF), DQT, SOF0 (8×8, one component), SOS: everything before the filler.
    static let header: [UInt8] =
        [0xFF, 0xD8]
        + [0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]
        + [0xFF, 0xDB, 0x00, 0x43, 0x00] + [UInt8](repeating: 0x01, count: 64)
        + [0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x00, 0x08, 0x00, 0x08, 0x01, 0x01, 0x11, 0x00]
        + [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00]

    /// A fixture of `count` bytes (at least the header and EOI: 122 bytes).
    public static func bytes(count: Int, seed: UInt64) -> Data {
        let filler = max(0, count - header.count - 2)
        var random = SeededRandom(seed: seed)
        var data = Data(capacity: header.count + filler + 2)
        data.append(contentsOf: header)
        var remaining = filler
        while remaining > 0 {
            var word = random.next()
            let take = min(remaining, 8)
            withUnsafeBytes(of: &word) { bytes in data.append(contentsOf: bytes.prefix(take).map { $0 == 0xFF ? 0xFE : $0 }) }
            remaining -= take
        }
        data.append(contentsOf: [0xFF, 0xD9])
        return data
    }

    /// Writes a fixture of `count` bytes to `url` and returns its content.
    @discardableResult
    public static func write(to url: URL, count: Int, seed: UInt64) throws -> Data {
        let data = bytes(count: count, seed: seed)
        try data.write(to: url)
        return data
    }
}
