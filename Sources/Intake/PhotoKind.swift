import Foundation

/// Deciding by file name whether a source should take a file.
public enum PhotoKind {
    /// relay uploads JPEGs; RAW files stay on the card (and are counted as skipped).
    public static func isJPEG(fileName: String) -> Bool {
        let ext = (fileName as NSString).pathExtension.lowercased()
        return ext == "jpg" || ext == "jpeg"
    }

    /// Files a hot folder should not even count: hidden files and partial uploads of FTP servers.
    public static func isIgnored(fileName: String) -> Bool {
        let lower = fileName.lowercased()
        return fileName.hasPrefix(".") || lower.hasSuffix(".part") || lower.hasSuffix(".tmp")
            || lower.hasSuffix(".filepart") || lower.hasSuffix(".crdownload")
    }
}
