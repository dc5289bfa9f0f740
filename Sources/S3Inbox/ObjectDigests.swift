import Foundation
import RelayCore

/// The digests a downloaded inbox object is checked against, from one read of its bytes: its
/// MD5 and SHA-256 and, given the sizes of the parts it was uploaded in, its composite SHA-256
/// (the SHA-256 of each part's SHA-256, what a multipart upload's `x-amz-checksum-sha256` is).
public struct ObjectDigests: Sendable {
    private var md5 = MD5Digest()
    private var sha256 = SHA256Digest()
    private let partSizes: [Int64]
    private var part = SHA256Digest()
    private var partIndex = 0
    private var partLeft: Int64
    private var partDigests: [UInt8] = []
    /// Bytes beyond the parts, or a part of no bytes: the sizes are not this object's.
    private var misfit: Bool

    /// With `partSizes` (empty: not a multipart upload, or its parts unknown).
    public init(partSizes: [Int64] = []) {
        self.partSizes = partSizes
        partLeft = partSizes.first ?? 0
        misfit = partSizes.contains { $0 <= 0 }
    }

    public mutating func update(_ bytes: UnsafeBufferPointer<UInt8>) {
        md5.update(bytes)
        sha256.update(bytes)
        guard !partSizes.isEmpty, !misfit else { return }
        var rest = bytes[...]
        while !rest.isEmpty {
            guard partIndex < partSizes.count else {
                misfit = true
                return
            }
            let take = Int(min(partLeft, Int64(rest.count)))
            part.update(UnsafeBufferPointer(rebasing: rest.prefix(take)))
            rest = rest.dropFirst(take)
            partLeft -= Int64(take)
            if partLeft == 0 {
                partDigests += part.finish()
                part = SHA256Digest()
                partIndex += 1
                partLeft = partIndex < partSizes.count ? partSizes[partIndex] : 0
            }
        }
    }

    public var md5Hex: String { md5.hex() }

    public var sha256Base64: String { sha256.base64() }

    /// Base64, without the `-N`; nil without part sizes, or when the bytes did not fill them
    /// exactly.
    public var compositeSHA256: String? {
        guard !partSizes.isEmpty, !misfit, partIndex == partSizes.count else { return nil }
        var composite = SHA256Digest()
        composite.update(partDigests)
        return composite.base64()
    }
}
