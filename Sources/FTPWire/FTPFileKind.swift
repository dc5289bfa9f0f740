/// What a file name says a camera is sending: relay takes JPEGs, answers RAW and video files
/// with 226 (so the camera does not resend them forever) and counts them as skipped unless RAW is
/// wanted, holds a file under a temporary name until it is renamed, and refuses anything else.
public enum FTPFileKind: Sendable, Equatable {
    case jpeg
    case raw
    case video
    /// A name FTP clients upload to before renaming the file into place (``isTemporaryName(_:)``):
    /// what it is becomes known from the name it is renamed to.
    case temporary
    case other

    /// Suffixes of the temporary names FTP clients write to: relay's own FTP destination and
    /// many desks' tools (`.part`), WinSCP (`.filepart`), scripts (`.tmp`).
    static let temporarySuffixes = [".part", ".filepart", ".tmp"]

    /// Whether `fileName` is a temporary upload name: a hidden name (lftp's `xfer:temp-file-name`
    /// is `.in.*`, relay's destination writes `.NAME.part`) or one ending in a temporary suffix.
    public static func isTemporaryName(_ fileName: String) -> Bool {
        let lower = fileName.lowercased()
        guard lower != "." && lower != ".." else { return false }
        return lower.hasPrefix(".") || temporarySuffixes.contains { lower.hasSuffix($0) && lower.count > $0.count }
    }

    /// RAW extensions of the bodies that upload over FTP (Canon CR2/CR3, Nikon NEF/NRW, Sony ARW,
    /// Fujifilm RAF, OM ORF, Panasonic RW2, Pentax PEF, Adobe DNG, Hasselblad 3FR/FFF, Phase One IIQ,
    /// Leica RWL, Samsung SRW, Sigma X3F), and the HEIF stills Canon and Sony write instead of
    /// JPEG when asked, which relay does not upload either.
    static let rawExtensions: Set<String> = [
        "cr2", "cr3", "crw", "nef", "nrw", "arw", "srf", "sr2", "raf", "orf", "rw2", "pef", "dng", "3fr", "fff", "iiq",
        "rwl", "srw", "x3f", "hif", "heic", "heif",
    ]
    /// Video extensions those bodies write (Canon CRM is Cinema RAW Light).
    static let videoExtensions: Set<String> = ["mov", "mp4", "mts", "m2ts", "avi", "mxf", "crm"]

    public init(fileName: String) {
        if Self.isTemporaryName(fileName) {
            self = .temporary
            return
        }
        let lower = fileName.lowercased()
        guard let dot = lower.lastIndex(of: "."), dot != lower.startIndex else {
            self = .other
            return
        }
        let ext = String(lower[lower.index(after: dot)...])
        if ext == "jpg" || ext == "jpeg" {
            self = .jpeg
        } else if Self.rawExtensions.contains(ext) {
            self = .raw
        } else if Self.videoExtensions.contains(ext) {
            self = .video
        } else {
            self = .other
        }
    }
}
