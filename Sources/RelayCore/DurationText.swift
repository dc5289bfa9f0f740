/// How every relay command writes a length of time: a number with a unit ms, s, m, h or d, a bare
/// number being seconds. One grammar, so `relay run --grace 15s`, `relay capture --every 5m` and
/// `relay camera-sim --shoot-every 500ms` read alike and are refused alike.
public enum DurationText {
    /// The accepted forms, for messages and help.
    public static let forms = "a number with a unit ms, s, m, h or d (e.g. 500ms, 30s, 5m, 1.5h, 1d; a bare number is seconds)"

    /// The longest duration read (ten years): more is a typo, not a plan.
    public static let longest = 3650 * 86_400.0

    private static let units: [String: Double] = ["": 1, "ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86_400]

    /// Seconds from `text`, or nil when it is not a duration this grammar reads (negative, not a
    /// plain number, an unknown unit, longer than `longest`).
    public static func seconds(_ text: String) -> Double? {
        guard let parsed = UnitNumber(text), let scale = units[parsed.unit], let number = parsed.value else { return nil }
        let seconds = number * scale
        return seconds <= longest ? seconds : nil
    }

    /// Seconds from the value of `option`, within `range`; the error names the option and the fix.
    public static func parse(_ text: String, option: String, in range: ClosedRange<Double>) throws(CommandLineValueError) -> Double {
        guard let seconds = seconds(text) else { throw .notADuration(option: option, text: text) }
        guard range.contains(seconds) else { throw .durationOutOfRange(option: option, text: text, range: range) }
        return seconds
    }

    /// The shortest text this grammar reads back as `seconds` ("500ms", "15s", "5m", "1.5s"), for
    /// help defaults and ranges.
    public static func format(_ seconds: Double) -> String {
        for (unit, scale) in [("d", 86_400.0), ("h", 3600), ("m", 60), ("s", 1)] where seconds >= scale {
            let count = seconds / scale
            if count == count.rounded(), count < 1e15 { return "\(Int(count))\(unit)" }
        }
        let milliseconds = seconds * 1000
        if seconds > 0, seconds < 1, milliseconds == milliseconds.rounded() { return "\(Int(milliseconds))ms" }
        return seconds == 0 ? "0s" : "\(seconds)s"
    }
}
