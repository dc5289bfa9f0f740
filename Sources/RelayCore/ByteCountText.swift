import Foundation

/// Sizes as a photographer reads them: `850 KB`, `4.2 MB` (decimal units, like camera cards).
public enum ByteCountText {
    public static func format(_ bytes: Int64) -> String {
        if bytes < 1_000 { return "\(bytes) B" }
        if bytes < 1_000_000 { return "\(bytes / 1_000) KB" }
        return String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }

    /// "24.8 MB → 812 KB" when a smaller copy (`sent`) went instead of the photo, else its size.
    public static func format(_ bytes: Int64, sent: Int64?) -> String {
        sent.map { "\(format(bytes)) → \(format($0))" } ?? format(bytes)
    }
}
