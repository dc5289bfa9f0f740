/// The media type of a photo file, from its extension: the gallery or the bucket is told what it
/// receives, so a RAW taken with `--include-raw` is not labelled a JPEG. Types for RAW formats are
/// the ones in common use (freedesktop shared-mime-info), since IANA registered none of them.
public enum ContentType {
    public static func of(fileName: String) -> String {
        let ext = fileName.split(separator: ".").last.map { $0.lowercased() } ?? ""
        guard fileName.contains(".") else { return fallback }
        return byExtension[ext] ?? fallback
    }

    /// For any file relay cannot name.
    public static let fallback = "application/octet-stream"

    private static let byExtension: [String: String] = [
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "heic": "image/heic", "heif": "image/heif", "hif": "image/heif",
        "json": "application/json", "tif": "image/tiff", "tiff": "image/tiff", "png": "image/png",
        "cr2": "image/x-canon-cr2", "cr3": "image/x-canon-cr3", "crw": "image/x-canon-crw",
        "nef": "image/x-nikon-nef", "nrw": "image/x-nikon-nrw", "arw": "image/x-sony-arw", "srf": "image/x-sony-srf",
        "sr2": "image/x-sony-sr2", "raf": "image/x-fuji-raf", "orf": "image/x-olympus-orf", "rw2": "image/x-panasonic-rw2",
        "pef": "image/x-pentax-pef", "dng": "image/x-adobe-dng",
    ]
}
