import Foundation
import PhotoMetadata
import Spool

/// Reads a committed photo's first bytes once for what the spool keeps of it: the camera that
/// made it (EXIF Model and BodySerialNumber, or the maker note's serial) and, when a destination
/// sends selected photos, its rating.
enum PhotoFileHeader {
    static func facts(of url: URL, rating: Bool) -> HeaderFacts {
        // A rating may sit in an XMP packet after a 64 KB EXIF block: read as far as it reaches.
        guard let head = firstBytes(of: url.path, count: rating ? PhotoRating.readLength : PhotoHeaderIdentity.readLength) else {
            return HeaderFacts()
        }
        let identity = PhotoHeaderIdentity(head: head)
        return HeaderFacts(rating: rating ? PhotoRating.read(head: head) : nil, camera: camera(identity), photographer: identity.artist)
    }

    /// The first `count` bytes of a committed file (by default where its EXIF identity is), nil
    /// when it cannot be read.
    static func firstBytes(of path: String, count: Int = PhotoHeaderIdentity.readLength) -> [UInt8]? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: count)).map { [UInt8]($0) }
    }

    /// "Canon EOS R5 #012345", the model alone, or nil when the file names no model.
    static func camera(_ identity: PhotoHeaderIdentity) -> String? {
        guard let model = identity.model?.trimmingCharacters(in: .whitespaces), !model.isEmpty else { return nil }
        guard let serial = identity.serial?.trimmingCharacters(in: .whitespaces), !serial.isEmpty else { return model }
        return "\(model) #\(serial)"
    }
}
