import Foundation

/// The battery level libgphoto2's `batterylevel` widget shows, as a percentage. The ptp2 driver
/// writes "75%" for the standard and Sony properties and Canon's steps as "Low", "25%" … "100%",
/// and "Unknown value" (or "Unknown", "broken") when it cannot tell (camlibs/ptp2 config.c
/// `_get_BatteryLevel`, `_get_SONY_BatteryLevel`, `_get_Canon_EOS_BatteryLevel`); other drivers
/// write "Full".
public enum GPhoto2BatteryText {
    /// What relay takes for "Low": under the 20 % warning line (the same as Canon's Low step).
    public static let lowPercent = 10

    /// The percentage `text` says, nil when it says none.
    public static func percent(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        switch trimmed {
        case "full": return 100
        case "low": return lowPercent
        case "empty": return 0
        default: break
        }
        let digits = trimmed.hasSuffix("%") ? String(trimmed.dropLast()).trimmingCharacters(in: .whitespaces) : trimmed
        guard let value = Int(digits), (0...100).contains(value) else { return nil }
        return value
    }
}
