/// A PTP object format code, plus the JPEG/RAW classification the tether filters on.
///
/// Vendor codes overlap (0xB101 is Canon CRW and Sony ARW), and some bodies (most Nikons) report
/// every file as `undefined` with only the name telling NEF from JPEG, so classification looks at
/// the format code first and falls back to the file extension.
public struct PTPObjectFormat: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }

    public static let undefined = PTPObjectFormat(0x3000)
    /// A folder (association type 1 = generic folder).
    public static let association = PTPObjectFormat(0x3001)
    public static let script = PTPObjectFormat(0x3002)
    public static let executable = PTPObjectFormat(0x3003)
    public static let text = PTPObjectFormat(0x3004)
    public static let html = PTPObjectFormat(0x3005)
    public static let dpof = PTPObjectFormat(0x3006)
    public static let aiff = PTPObjectFormat(0x3007)
    public static let wav = PTPObjectFormat(0x3008)
    public static let mp3 = PTPObjectFormat(0x3009)
    public static let avi = PTPObjectFormat(0x300A)
    public static let mpeg = PTPObjectFormat(0x300B)
    public static let asf = PTPObjectFormat(0x300C)
    public static let quickTime = PTPObjectFormat(0x300D)
    public static let exifJPEG = PTPObjectFormat(0x3801)
    public static let tiffEP = PTPObjectFormat(0x3802)
    public static let bmp = PTPObjectFormat(0x3804)
    public static let gif = PTPObjectFormat(0x3807)
    public static let jfif = PTPObjectFormat(0x3808)
    public static let png = PTPObjectFormat(0x380B)
    public static let tiff = PTPObjectFormat(0x380D)
    public static let dng = PTPObjectFormat(0x3811)
    public static let canonCRW = PTPObjectFormat(0xB101)
    public static let canonCR2 = PTPObjectFormat(0xB103)
    public static let canonMOV = PTPObjectFormat(0xB104)
    public static let canonMOV2 = PTPObjectFormat(0xB105)
    public static let canonCR3 = PTPObjectFormat(0xB108)
    /// libgphoto2's PTP_OFC_SONY_RAW: the same value as Canon CRW (vendor codes overlap).
    public static let sonyARW = PTPObjectFormat(0xB101)
    /// Nikon has no NEF code in libgphoto2: bodies report NEF as `undefined` with a .NEF name.
    public static let nikonNEF = PTPObjectFormat(0x3000)

    private static let names: [UInt16: String] = [
        0x3000: "Undefined", 0x3001: "Association", 0x3002: "Script", 0x3003: "Executable",
        0x3004: "Text", 0x3005: "HTML", 0x3006: "DPOF", 0x3007: "AIFF", 0x3008: "WAV",
        0x3009: "MP3", 0x300A: "AVI", 0x300B: "MPEG", 0x300C: "ASF", 0x300D: "QuickTime",
        0x3801: "EXIF/JPEG", 0x3802: "TIFF/EP", 0x3804: "BMP", 0x3807: "GIF", 0x3808: "JFIF",
        0x380B: "PNG", 0x380D: "TIFF", 0x3811: "DNG",
        0xB101: "Canon CRW / Sony ARW", 0xB103: "Canon CR2", 0xB104: "Canon MOV",
        0xB105: "Canon MOV", 0xB108: "Canon CR3",
    ]

    public var name: String? { Self.names[rawValue] }
    public var description: String { ptpCodeDescription(rawValue, digits: 4, name: name) }

    /// Whether this code alone says JPEG.
    public var isJPEG: Bool { self == .exifJPEG || self == .jfif }

    /// Whether this code alone says camera RAW.
    public var isRawCode: Bool {
        self == .canonCRW || self == .canonCR2 || self == .canonCR3 || self == .dng
    }

    /// Whether this code alone says folder.
    public var isAssociation: Bool { self == .association }

    /// File name extensions (lower case, no dot) taken as JPEG when the code does not decide.
    public static let jpegExtensions: Set<String> = ["jpg", "jpeg"]
    /// File name extensions (lower case, no dot) taken as RAW when the code does not decide.
    public static let rawExtensions: Set<String> = [
        "cr2", "cr3", "crw", "nef", "nrw", "arw", "raf", "orf", "rw2", "dng", "raw",
    ]

    /// The kind of photo a file is, for filtering what to deliver.
    public enum PhotoKind: String, Sendable, Equatable {
        case jpeg, raw, other
    }

    /// Classifies by format code first, then by `fileName`'s extension.
    ///
    /// A known code decides (a MOV named .JPG is still a movie); `undefined` and unknown vendor
    /// codes fall back to the extension.
    public func photoKind(fileName: String) -> PhotoKind {
        if isJPEG { return .jpeg }
        if isRawCode { return .raw }
        if self != .undefined, name != nil { return .other }
        let ext = Self.lowercasedExtension(of: fileName)
        if Self.jpegExtensions.contains(ext) { return .jpeg }
        if Self.rawExtensions.contains(ext) { return .raw }
        return .other
    }

    /// Whether the file is a JPEG (code first, extension second).
    public func isJPEG(fileName: String) -> Bool { photoKind(fileName: fileName) == .jpeg }

    /// Whether the file is camera RAW (code first, extension second).
    public func isRaw(fileName: String) -> Bool { photoKind(fileName: fileName) == .raw }

    static func lowercasedExtension(of fileName: String) -> String {
        guard let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex else { return "" }
        return String(fileName[fileName.index(after: dot)...]).lowercased()
    }
}
