import FTPWire
import Foundation

/// Whether a downloaded inbox object is the photo that was uploaded (pure: the facts are read
/// from the file first). A store gives no checksum in its listing, so the ETag is the check
/// where it is an MD5 (a simple PUT, no SSE-KMS); a multipart upload's ETag (`…-N`) is not, and
/// the JPEG's own structure is then the only check, as it always is for the FTP receiver.
public enum InboxObjectCheck: Sendable, Equatable {
    case whole
    /// Refused, with the reason said to the desk's owner.
    case refused(String)

    /// Whether `etag` is an MD5 of the object's bytes: 32 hex digits, no `-N`.
    public static func isMD5(_ etag: ETag) -> Bool {
        etag.value.count == 32 && etag.value.allSatisfy(\.isHexDigit)
    }

    /// The verdict for `key`, whose listing said `etag` and `listedSize`, downloaded as `size`
    /// bytes with MD5 `md5Hex` and a JPEG structure judged `structure`.
    public static func judge(
        key: String, etag: ETag, listedSize: Int64, size: Int64, md5Hex: String, structure: JPEGStructure.Verdict
    ) -> Self {
        if size != listedSize {
            return .refused("\(key) came as \(size) bytes where the listing said \(listedSize): it is taken again when listed again")
        }
        if isMD5(etag), md5Hex.lowercased() != etag.value.lowercased() {
            return .refused("\(key) does not match its ETag (MD5 \(md5Hex), ETag \(etag.value)): the bytes were damaged on the way")
        }
        switch structure {
        case .complete:
            return .whole
        case .incomplete:
            return .refused("\(key) is cut short: its JPEG image does not end; upload it again whole")
        case .unreadable:
            return .refused("\(key) is not a JPEG relay can read: upload the camera's JPEG")
        }
    }
}
