/// A camera's battery level in percent, from the ways bodies report it. Each scale is the one
/// libgphoto2 reads (camlibs/ptp2 config.c `_get_BatteryLevel`, `_get_SONY_BatteryLevel`,
/// `_get_Canon_EOS_BatteryLevel`), so relay and `gphoto2 --get-config batterylevel` agree.
public enum BatteryLevel {
    /// Standard BatteryLevel 0x5001 (UINT8). A range form scales the value into it; an
    /// enumeration whose largest value is below 100 is a list of steps (Canon PowerShots list
    /// 0–3) and scales to that largest step; otherwise the value is the percentage.
    public static func percent(standard desc: PTPDevicePropDesc) -> Int? {
        percent(value: desc.current, form: desc.form)
    }

    /// `value` read with GetDevicePropValue, scaled by the form GetDevicePropDesc gave earlier.
    public static func percent(value: Int64, form: PTPDevicePropDesc.Form) -> Int? {
        switch form {
        case .range(let minimum, let maximum, _):
            let span = maximum - minimum + 1
            guard span > 0 else { return nil }
            return clamp((value - minimum + 1) * 100 / span)
        case .enumeration(let values):
            let highest = values.max() ?? 100
            if highest > 0 && highest < 100 { return clamp(value * 100 / highest) }
            return clamp(value)
        case .none:
            return clamp(value)
        }
    }

    /// Sony BatteryLevel 0xD218 (INT8): -1 means unknown, and a range starting at -1 starts at 0.
    public static func percent(sony desc: PTPDevicePropDesc) -> Int? {
        guard desc.current >= 0 else { return nil }
        if case .range(let minimum, let maximum, let step) = desc.form {
            return percent(value: desc.current, form: .range(minimum: max(0, minimum), maximum: maximum, step: step))
        }
        return clamp(desc.current)
    }

    /// What relay takes for Canon's "Low", the only step below 25 %: under the 20 % warning line,
    /// because a body that says "Low" will stop soon.
    public static let canonLowPercent = 10

    /// Canon EOS BatteryPower 0xD111, reported in the GetEvent stream as steps, not percent:
    /// 0 Low, 5 25 %, 1 50 %, 4 75 %, 2 100 %; other values (3, or a grip's codes) are unknown.
    public static func percent(canonEOSStep step: UInt32) -> Int? {
        switch step {
        case 0: return canonLowPercent
        case 5: return 25
        case 1: return 50
        case 4: return 75
        case 2: return 100
        default: return nil
        }
    }

    /// The Canon step a level falls in, for a simulated body: 25 % from 25 to 49, and so on;
    /// Low under 25 %.
    public static func canonEOSStep(percent: Int) -> UInt32 {
        switch percent {
        case ..<25: return 0
        case ..<50: return 5
        case ..<75: return 1
        case ..<100: return 4
        default: return 2
        }
    }

    private static func clamp(_ value: Int64) -> Int {
        Int(min(100, max(0, value)))
    }
}
