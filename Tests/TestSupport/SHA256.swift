import Foundation
import RelayCore

/// SHA-256 of a whole buffer for tests, which compare the gallery's reported digests with the
/// files they sent (relay's own streaming digest, itself checked against known vectors).
public enum SHA256 {
    /// The digest as 64 lower-case hex digits.
    public static func hex(_ data: Data) -> String {
        var digest = SHA256Digest()
        digest.update(data)
        return digest.hex()
    }
}
