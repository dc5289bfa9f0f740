import Foundation
import Intake
import PTPWire

/// An object a body would not describe (GetObjectInfo refused), as its dialect describes it.
struct UndescribedObject {
    var info: PTPObjectInfo
    /// The file's first bytes, when the dialect read them to tell its kind: the session learns
    /// the photo's identity from them and starts its download with them.
    var head: [UInt8]?
}

/// Telling a photo's kind from its first bytes, for bodies that describe no object (a Nikon Z
/// in "connect to computer" mode, a Canon memory capture with no name in its event record).
enum FileSignature {

    /// JPEG starts with SOI (FF D8 FF); NEF, CR2, ARW and DNG are TIFF files ("II*\0" or
    /// "MM\0*"); CR3 is an ISO media file ("ftypcrx " at byte 4).
    static func kind(of head: [UInt8]) -> PTPObjectFormat.PhotoKind {
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if head.starts(with: [0x49, 0x49, 0x2A, 0x00]) || head.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) { return .raw }
        if head.count >= 12, Array(head[4..<12]) == Array("ftypcrx ".utf8) { return .raw }
        return .other
    }
}

extension PTPObjectInfo {
    /// An ObjectInfo for an object the camera would not describe, with a file name of relay's
    /// own: `PREFIX_HANDLE.JPG`. The handle keeps the name (and so the spool's identity and the
    /// gallery's Idempotency-Key) the same across retries and restarts. A size the body does not
    /// give is 0xFFFFFFFF, PTP's "not given here" (``CameraObject/expectedBytes``).
    static func described(
        handle: UInt32, kind: PTPObjectFormat.PhotoKind, size: UInt32?, namePrefix: String,
        format: PTPObjectFormat? = nil
    ) -> PTPObjectInfo {
        let ext: String
        let code: PTPObjectFormat
        switch kind {
        case .jpeg: (ext, code) = ("JPG", .exifJPEG)
        case .raw: (ext, code) = ("RAW", .undefined)
        case .other: (ext, code) = ("BIN", .undefined)
        }
        let name = namePrefix + "_" + String(format: "%08X", handle) + "." + ext
        return PTPObjectInfo(storageID: 0, objectFormat: format ?? code, compressedSize: size ?? .max, filename: name)
    }

    /// A folder of the card, for an object a body will not describe and that has no size.
    static let folder = PTPObjectInfo(
        storageID: 0, objectFormat: .association, compressedSize: 0,
        associationType: associationGenericFolder, filename: "")
}
