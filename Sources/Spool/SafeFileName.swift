import Foundation

/// Turns a camera's file name into one that is safe in a URL, a multipart header and a gallery
/// folder: ASCII letters, digits, `.`, `-` and `_` only, no leading dot, a `.jpg`-style extension kept.
public enum SafeFileName {
    public static func make(_ name: String) -> String {
        let base = (name as NSString).lastPathComponent
        var safe = String(base.unicodeScalars.map { scalar -> Character in
            let allowed = scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "._-".unicodeScalars.contains(scalar))
            return allowed ? Character(scalar) : "_"
        })
        while safe.hasPrefix(".") { safe.removeFirst() }
        if safe.count > 120 {
            let ext = (safe as NSString).pathExtension
            safe = String(safe.prefix(100)) + (ext.isEmpty ? "" : "." + ext)
        }
        return safe.isEmpty || safe.allSatisfy({ $0 == "_" || $0 == "." }) ? "photo.jpg" : safe
    }

    /// `name` with `-suffix` inserted before its extension (`IMG_1.JPG` → `IMG_1-2.JPG`).
    public static func withSuffix(_ name: String, _ suffix: String) -> String {
        let ext = (name as NSString).pathExtension
        let stem = (name as NSString).deletingPathExtension
        return ext.isEmpty ? "\(stem)-\(suffix)" : "\(stem)-\(suffix).\(ext)"
    }
}
