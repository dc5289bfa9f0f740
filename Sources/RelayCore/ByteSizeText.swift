/// How every relay command writes a size: bytes, or a number with a unit. K, M and G count in
/// thousands (1M = 1 000 000 bytes), as `ByteCountText` prints sizes in the log and as camera
/// cards are labelled; KiB, MiB and GiB count in 1024s for whoever thinks in those. One grammar,
/// so `--spool-max-bytes 4G` and camera-sim's `--photo-size 4M` mean the same kind of number.
public enum ByteSizeText {
    /// The accepted forms, for messages and help.
    public static let forms =
        "bytes, or a number with a unit K, M or G (1000-based, as the log counts: 1M is 1 000 000 bytes) "
        + "or KiB, MiB or GiB (1024-based), e.g. 500K, 4G, 1.5M, 256KiB"

    private static let units: [String: Int64] = [
        "": 1, "b": 1, "k": 1_000, "kb": 1_000, "m": 1_000_000, "mb": 1_000_000, "g": 1_000_000_000, "gb": 1_000_000_000,
        "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30,
    ]

    /// Bytes from `text`, or nil when it is not a size this grammar reads (negative, not a plain
    /// number, an unknown unit, a fraction of a byte, more than Int64 holds).
    public static func bytes(_ text: String) -> Int64? {
        guard let parsed = UnitNumber(text), let scale = units[parsed.unit],
            parsed.fraction.count <= 9, let whole = Int64(parsed.whole)
        else { return nil }
        var fractionBytes: Int64 = 0
        if let digits = Int64(parsed.fraction) {
            // 0.5K = 5 × 1000 / 10: exact in integers, and refused when it leaves part of a byte.
            var denominator: Int64 = 1
            for _ in parsed.fraction { denominator *= 10 }
            let numerator = digits * scale
            guard numerator % denominator == 0 else { return nil }
            fractionBytes = numerator / denominator
        }
        let (wholeBytes, overflow) = whole.multipliedReportingOverflow(by: scale)
        let (total, overflowAdding) = wholeBytes.addingReportingOverflow(fractionBytes)
        return overflow || overflowAdding ? nil : total
    }

    /// Bytes from the value of `option`, within `range`; the error names the option and the fix.
    public static func parse(_ text: String, option: String, in range: ClosedRange<Int64>) throws(CommandLineValueError) -> Int64 {
        guard let bytes = bytes(text) else { throw .notASize(option: option, text: text) }
        guard range.contains(bytes) else { throw .sizeOutOfRange(option: option, text: text, range: range) }
        return bytes
    }

    /// The shortest text this grammar reads back as `bytes` ("4G", "256K", "64KiB", "1500"), for
    /// help defaults and ranges.
    public static func format(_ bytes: Int64) -> String {
        let named: [(String, Int64)] = [
            ("G", 1_000_000_000), ("GiB", 1 << 30), ("M", 1_000_000), ("MiB", 1 << 20), ("K", 1_000), ("KiB", 1 << 10),
        ]
        for (unit, scale) in named where bytes >= scale && bytes % scale == 0 { return "\(bytes / scale)\(unit)" }
        return "\(bytes)"
    }
}
