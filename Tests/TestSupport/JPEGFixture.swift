import Foundation
import RelayCore

/// Synthetic JPEG-shaped files for upload tests: SOI marker, deterministic filler, EOI marker.
/// The gallery checks exactly those markers, and the filler makes every seed a different photo.
public enum JPEGFixture {
    public static func bytes(count: Int, seed: UInt64) -> Data {
        let total = max(count, 6)
        var random = SeededRandom(seed: seed)
        var data = Data(capacity: total)
        data.append(contentsOf: [0xFF, 0xD8, 0xFF, 0xE0])
        var remaining = total - 6
        while remaining > 0 {
            var word = random.next()
            let take = min(remaining, 8)
            withUnsafeBytes(of: &word) { data.append(contentsOf: $0.prefix(take)) }
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
