import FTPWire
import Foundation

/// Whether a downloaded inbox object is the photo that was uploaded (pure: the facts are read
/// from the file first). The strongest check the store gives is used: the object's
/// `x-amz-checksum-sha256` (a field relay's S3 destination sends it, and SeaweedFS and AWS verify
/// it at upload), else the ETag where it is an MD5 (a simple PUT, no SSE-KMS). A multipart
/// upload's SHA-256 checksum is the SHA-256 of its parts' SHA-256s (SeaweedFS and AWS write it
/// `…-N`, moto without the `-N`): checked when the parts' sizes are known. Its ETag (`…-N`) is
/// never compared: with SSE-KMS it is no digest of the parts either. Without any of these the
/// JPEG's own structure is the only check, as it always is for the FTP receiver.
public enum InboxObjectCheck: Sendable, Equatable {
    case whole
    /// Refused, with the reason said to the desk's owner.
    case refused(String)

    /// What a download can be checked against.
    public enum Basis: Sendable, Equatable {
        case sha256
        /// A multipart upload's checksum, of its parts' SHA-256s.
        case compositeSHA256
        case md5ETag
        case structureOnly
    }

    /// Whether `etag` is an MD5 of the object's bytes: 32 hex digits, no `-N`.
    public static func isMD5(_ etag: ETag) -> Bool {
        etag.value.count == 32 && etag.value.allSatisfy(\.isHexDigit)
    }

    /// Whether `etag` is a multipart upload's: `…-N`.
    public static func isMultipart(_ etag: ETag) -> Bool {
        guard let dash = etag.value.lastIndex(of: "-") else { return false }
        let count = etag.value[etag.value.index(after: dash)...]
        return !count.isEmpty && count.allSatisfy(\.isASCII) && count.allSatisfy(\.isNumber)
    }

    /// The SHA-256 of the whole object that `checksum` (an `x-amz-checksum-sha256` value) gives,
    /// or nil when it gives none: not base64 of 32 bytes (a composite `…-N`), or of an object
    /// whose `etag` says it was a multipart upload (composite, whatever it looks like).
    public static func wholeSHA256(_ checksum: String?, etag: ETag) -> Data? {
        guard let checksum, !isMultipart(etag), let digest = Data(base64Encoded: checksum), digest.count == 32 else { return nil }
        return digest
    }

    /// The digest of the parts' SHA-256s that `checksum` gives for an object whose `etag` says it
    /// was a multipart upload (`…-N` or, from moto, without the `-N`); nil for any other.
    public static func compositeSHA256(_ checksum: String?, etag: ETag) -> Data? {
        guard let checksum, isMultipart(etag) else { return nil }
        var digest = Substring(checksum)
        if let dash = digest.lastIndex(of: "-") { digest = digest[..<dash] }
        guard let bytes = Data(base64Encoded: String(digest)), bytes.count == 32 else { return nil }
        return bytes
    }

    /// The check `judge` makes of an object with `etag` and `checksum`, with its parts' sizes
    /// known or not.
    public static func basis(etag: ETag, checksum: String?, partsKnown: Bool = false) -> Basis {
        if wholeSHA256(checksum, etag: etag) != nil { return .sha256 }
        if partsKnown, compositeSHA256(checksum, etag: etag) != nil { return .compositeSHA256 }
        return isMD5(etag) ? .md5ETag : .structureOnly
    }

    /// The verdict for `key`, whose listing said `etag` and `listedSize`, downloaded as `size`
    /// bytes with MD5 `md5Hex`, SHA-256 `sha256Base64` and a JPEG structure judged `structure`;
    /// `checksum` is the store's `x-amz-checksum-sha256` of the object, when it gave one, and
    /// `composite` the SHA-256 of the bytes' parts' SHA-256s, when the parts' sizes were known.
    public static func judge(
        key: String, etag: ETag, listedSize: Int64, size: Int64, md5Hex: String, checksum: String? = nil, sha256Base64: String = "",
        composite: String? = nil, structure: JPEGStructure.Verdict
    ) -> Self {
        if size != listedSize {
            return .refused("\(key) came as \(size) bytes where the listing said \(listedSize)")
        }
        if let checksum, let expected = wholeSHA256(checksum, etag: etag), expected != Data(base64Encoded: sha256Base64) {
            return .refused(
                "\(key) does not match its SHA-256 checksum (got \(sha256Base64), the store has \(checksum)): "
                    + "the bytes were damaged on the way")
        }
        if let composite, let expected = compositeSHA256(checksum, etag: etag), expected != Data(base64Encoded: composite) {
            return .refused(
                "\(key) does not match its multipart SHA-256 checksum (got \(composite), the store has \(checksum ?? "")): "
                    + "the bytes were damaged on the way")
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
