import Foundation

/// Turns a camera's or user's file name into one that is safe in a multipart header and on any
/// server's disk: the last path component only, ASCII letters, digits, `.`, `-` and `_`, no
/// leading dot, bounded length. The camera's name survives unchanged in the common case
/// (`IMG_0001.JPG`), because event galleries sort by it.
public enum SafeFileName {
    /// Longest name produced, extension included.
    public static let maximumLength = 120

    public static func make(_ name: String, fallback: String = "photo.jpg") -> String {
        let lastComponent = name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        var scalars = String.UnicodeScalarView()
        for scalar in lastComponent.unicodeScalars {
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", ".", "-", "_":
                scalars.append(scalar)
            default:
                scalars.append("_")
            }
        }
        var safe = String(scalars)
        while safe.hasPrefix(".") { safe.removeFirst() }
        if safe.count > maximumLength {
            // Keep the extension: it is what tells a gallery the file type.
            let dot = safe.lastIndex(of: ".")
            let ext = dot.map { String(safe[$0...]) } ?? ""
            let keptExtension = ext.count <= 10 ? ext : ""
            safe = String(safe.prefix(maximumLength - keptExtension.count)) + keptExtension
        }
        let meaningful = safe.contains { $0 != "_" && $0 != "." && $0 != "-" }
        return meaningful ? safe : fallback
    }
}

extension SafeFileName {
    /// `name` with `-suffix` inserted before its extension (`IMG_1.JPG` → `IMG_1-2.JPG`), to make
    /// a clashing name unique while keeping it sortable next to the original.
    public static func withSuffix(_ name: String, _ suffix: String) -> String {
        let ext = (name as NSString).pathExtension
        let stem = (name as NSString).deletingPathExtension
        return ext.isEmpty ? "\(stem)-\(suffix)" : "\(stem)-\(suffix).\(ext)"
    }
}
