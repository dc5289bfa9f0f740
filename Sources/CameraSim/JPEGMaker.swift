import PTPWire
import RelayCore

/// Makes valid baseline JPEG files on the fly: a grayscale picture of random 8×8 tiles, padded
/// with application segments to roughly the byte size asked for. Each photo differs (its tiles
/// and its comment come from its own random stream), so a client that mixes two photos up is
/// caught by a byte comparison, and any JPEG decoder can open the result.
public enum JPEGMaker {
    /// A JPEG of `width`×`height` pixels (clamped to 8…4096) of about `targetSize` bytes (never
    /// less than the picture itself needs), with `label` in its comment segment and, when given,
    /// `exif` as its APP1 segment's body.
    public static func make(
        width: Int, height: Int, targetSize: Int, label: String, exif: [UInt8]? = nil,
        random: inout SeededRandom
    ) -> [UInt8] {
        let w = min(max(width, 8), 4096)
        let h = min(max(height, 8), 4096)
        var out: [UInt8] = [0xFF, 0xD8]
        // JFIF header so that every viewer recognises the file.
        appendSegment(0xE0, [0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00], to: &out)
        if let exif { appendSegment(0xE1, exif, to: &out) }
        appendSegment(0xFE, Array("relay camera-sim \(label)".utf8.prefix(60_000)), to: &out)
        // One quantisation table of ones: tile values map straight to brightness.
        appendSegment(0xDB, [0x00] + [UInt8](repeating: 1, count: 64), to: &out)
        appendSegment(
            0xC0,
            [
                0x08, UInt8(h >> 8), UInt8(h & 0xFF), UInt8(w >> 8), UInt8(w & 0xFF),
                0x01, 0x01, 0x11, 0x00,
            ], to: &out)
        // DC table: the standard luminance table (categories 0–11).
        let dcCounts: [UInt8] = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
        appendSegment(0xC4, [0x00] + dcCounts + Array(0...11), to: &out)
        // AC table: only end-of-block, one 1-bit code.
        appendSegment(0xC4, [0x10, 1] + [UInt8](repeating: 0, count: 15) + [0x00], to: &out)
        let scan = scanData(blocksAcross: (w + 7) / 8, blocksDown: (h + 7) / 8, random: &random)
        let fixed = out.count + 14 + scan.count + 2
        var padding = max(0, targetSize - fixed)
        while padding > 0 {
            let body = min(padding - min(padding, 4), 65_000)
            let chunk = max(0, body)
            appendSegment(0xEF, random.bytes(chunk), to: &out)
            padding -= chunk + 4
        }
        appendSegment(0xDA, [0x01, 0x01, 0x00, 0x00, 0x3F, 0x00], to: &out)
        out.append(contentsOf: scan)
        out.append(contentsOf: [0xFF, 0xD9])
        return out
    }

    private static func appendSegment(_ marker: UInt8, _ body: [UInt8], to out: inout [UInt8]) {
        let length = body.count + 2
        out.append(contentsOf: [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)])
        out.append(contentsOf: body)
    }

    /// Entropy-coded data: per block one DC difference (random tile brightness) and an
    /// end-of-block, with 0xFF bytes stuffed as the format requires.
    private static func scanData(blocksAcross: Int, blocksDown: Int, random: inout SeededRandom) -> [UInt8] {
        var writer = BitWriter()
        var previous = 0
        for _ in 0..<(blocksAcross * blocksDown) {
            let value = Int(random.next() % 1600) - 800
            let diff = value - previous
            previous = value
            let magnitude = diff.magnitude
            let category = magnitude == 0 ? 0 : (Int.bitWidth - magnitude.leadingZeroBitCount)
            let (code, length) = dcCode(category)
            writer.write(code, count: length)
            if category > 0 {
                let bits = diff > 0 ? diff : diff + (1 << category) - 1
                writer.write(UInt32(bits), count: category)
            }
            writer.write(0, count: 1)
        }
        return writer.finish()
    }

    /// The standard luminance DC code for a size category.
    private static func dcCode(_ category: Int) -> (UInt32, Int) {
        switch category {
        case 0: return (0b00, 2)
        case 1...5: return (UInt32(category + 1), 3)
        default:
            let length = category - 2
            return ((UInt32(1) << length) - 2, length)
        }
    }
}

/// Packs bits most significant first and stuffs a zero after every 0xFF byte.
struct BitWriter {
    private var bytes: [UInt8] = []
    private var current: UInt32 = 0
    private var filled = 0

    mutating func write(_ value: UInt32, count: Int) {
        for shift in stride(from: count - 1, through: 0, by: -1) {
            current = (current << 1) | ((value >> UInt32(shift)) & 1)
            filled += 1
            if filled == 8 { flushByte() }
        }
    }

    private mutating func flushByte() {
        let byte = UInt8(current & 0xFF)
        bytes.append(byte)
        if byte == 0xFF { bytes.append(0x00) }
        current = 0
        filled = 0
    }

    /// Pads the last byte with one bits, as the format asks.
    mutating func finish() -> [UInt8] {
        while filled != 0 { write(1, count: 1) }
        return bytes
    }
}
