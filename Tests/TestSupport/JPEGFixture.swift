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
        var random = SeededRandom(seed: seed)
        var filler = random.bytes(count - header.count - 2)
        filler.withUnsafeMutableBufferPointer { bytes in
            for index in bytes.indices where bytes[index] == 0xFF { bytes[index] = 0xFE }
        }
        return Data(header + filler + [0xFF, 0xD9])
    }

    /// Writes a fixture of `count` bytes to `url` and returns its content.
    @discardableResult
    public static func write(to url: URL, count: Int, seed: UInt64) throws -> Data {
        let data = bytes(count: count, seed: seed)
        try data.write(to: url)
        return data
    }
}
