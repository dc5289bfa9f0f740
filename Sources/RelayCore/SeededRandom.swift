/// A small deterministic generator (SplitMix64), so that a run with `--seed N` makes the same
/// photos and the same faults every time: a failing test can be replayed exactly.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The stream's next `count` bytes: each word's bytes, least significant first. Written a
    /// word at a time, so that the simulator and the tests fill megabytes fast even unoptimized.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: max(0, count))
        bytes.withUnsafeMutableBytes { raw in
            var offset = 0
            while offset < raw.count {
                let word = next().littleEndian
                let take = min(8, raw.count - offset)
                if take == 8 {
                    raw.storeBytes(of: word, toByteOffset: offset, as: UInt64.self)
                } else {
                    withUnsafeBytes(of: word) { raw.baseAddress!.advanced(by: offset).copyMemory(from: $0.baseAddress!, byteCount: take) }
                }
                offset += take
            }
        }
        return bytes
    }

    /// A generator for one sub-purpose (one photo, one session), independent of how many
    /// numbers other purposes drew.
    public static func derived(seed: UInt64, stream: UInt64, index: UInt64) -> SeededRandom {
        var mixer = SeededRandom(seed: seed ^ (stream &* 0xD6E8_FEB8_6659_FD93))
        for _ in 0..<(index % 7) { _ = mixer.next() }
        return SeededRandom(seed: mixer.next() ^ (index &* 0xA076_1D64_78BD_642F))
    }
}
