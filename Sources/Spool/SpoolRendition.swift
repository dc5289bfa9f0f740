import Foundation
import RelayCore

/// The gallery copy of a spooled photo, as its sidecar records it. Written only once the
/// rendition file is complete, fsynced and renamed in (`<id>.rendition.jpg`): a sidecar without
/// it, or with another spec's, means the rendition is made (again) before the photo is sent.
public struct SpoolRendition: Codable, Sendable, Equatable {
    /// The spec it was made for (``RenditionSpec/key``).
    public var spec: String
    /// The rendition's size; nil when the original is sent instead.
    public var bytes: Int64?
    public var width: Int?
    public var height: Int?
    /// Why the original is sent instead (already small, not a JPEG, damaged).
    public var originalReason: String?
    /// Sent with the rendition instead of the photo's own key: a gallery that receives both
    /// can tell them apart, and every attempt for the rendition carries the same key.
    public var idempotencyKey: String

    /// A rendition that was made and stored.
    public static func made(spec: String, photoKey: String, bytes: Int64, width: Int, height: Int) -> SpoolRendition {
        SpoolRendition(
            spec: spec, bytes: bytes, width: width, height: height, originalReason: nil,
            idempotencyKey: "\(photoKey)-\(spec)")
    }

    /// The original goes instead, for `reason`.
    public static func original(spec: String, photoKey: String, reason: String) -> SpoolRendition {
        SpoolRendition(spec: spec, bytes: nil, width: nil, height: nil, originalReason: reason, idempotencyKey: photoKey)
    }
}

extension SpoolEntry {
    /// Whether the upload sends a stored rendition rather than the photo.
    public var sendsRendition: Bool { rendition?.bytes != nil }

    /// The Idempotency-Key of what is sent.
    public var deliveryKey: String { sendsRendition ? rendition?.idempotencyKey ?? idempotencyKey : idempotencyKey }

    /// The bytes that are sent.
    public var deliveryBytes: Int64 { rendition?.bytes ?? bytes }

    /// Its smallest rendition made (what shows it best when small), if any.
    public var smallestRendition: SpoolRendition? {
        (renditions ?? [:]).values.filter { $0.bytes != nil }.min { ($0.bytes ?? 0) < ($1.bytes ?? 0) }
    }

    /// "24.8 MB → 812 KB" with a rendition (the one sent, else the smallest made), "24.8 MB" without.
    public var sizeText: String { ByteCountText.format(bytes, sent: (rendition ?? smallestRendition)?.bytes) }
}
