import RelayCore

/// Fuzzing helpers on the shared seeded generator, so a failure replays from its seed.
extension SeededRandom {
    /// A value in 0..<bound (bound > 0).
    mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }

    mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }

    mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in byte() }
    }

    mutating func u32() -> UInt32 { UInt32(truncatingIfNeeded: next()) }

    /// A copy of `input` with a few random edits: flipped bytes, truncation, insertion, and
    /// overwritten 32-bit fields (lengths and counts are the interesting targets).
    mutating func mutate(_ input: [UInt8]) -> [UInt8] {
        var bytes = input
        for _ in 0..<(1 + below(4)) {
            switch below(5) {
            case 0 where !bytes.isEmpty:
                bytes[below(bytes.count)] ^= UInt8(1 + below(255))
            case 1 where !bytes.isEmpty:
                bytes.removeLast(1 + below(bytes.count))
            case 2:
                bytes.insert(contentsOf: self.bytes(1 + below(8)), at: below(bytes.count + 1))
            case 3 where bytes.count >= 4:
                let at = below(bytes.count - 3)
                let interesting: [UInt32] = [0, 1, 7, 8, 0xFF, 0xFFFF, 0x7FFF_FFFF, 0xFFFF_FFFF, u32()]
                let value = interesting[below(interesting.count)]
                for index in 0..<4 { bytes[at + index] = UInt8(truncatingIfNeeded: value >> UInt32(index * 8)) }
            default:
                if !bytes.isEmpty { bytes[below(bytes.count)] = byte() }
            }
        }
        return bytes
    }
}
