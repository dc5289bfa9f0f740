import Foundation
import PhotoMetadata
import Spool

/// Reads a committed photo's first bytes once for what the spool keeps of it: the camera that
/// made it (EXIF Model and BodySerialNumber, or the maker note's serial) and, when a destination
/// sends selected photos, its rating.
enum PhotoFileHeader {
    static func facts(of url: URL, rating: Bool) -> HeaderFacts {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return HeaderFacts() }
        defer { try? handle.close() }
        // A rating may sit in an XMP packet after a 64 KB EXIF block: read as far as it reaches.
        let length = rating ? PhotoRating.readLength : PhotoHeaderIdentity.readLength
        guard let data = try? handle.read(upToCount: length) else { return HeaderFacts() }
        let head = [UInt8](data)
        let identity = PhotoHeaderIdentity(head: head)
        return HeaderFacts(rating: rating ? PhotoRating.read(head: head) : nil, camera: camera(identity))
    }

    /// "Canon EOS R5 #012345", the model alone, or nil when the file names no model.
    static func camera(_ identity: PhotoHeaderIdentity) -> String? {
        guard let model = identity.model?.trimmingCharacters(in: .whitespaces), !model.isEmpty else { return nil }
        guard let serial = identity.serial?.trimmingCharacters(in: .whitespaces), !serial.isEmpty else { return model }
        return "\(model) #\(serial)"
    }
}
