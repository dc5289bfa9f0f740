import Foundation
import PhotoMetadata
import TestSupport
import Testing

/// A photo's identity from its header, against files whose EXIF a third party wrote: Pillow
/// makes the photo (`scripts/camera_jpeg.py`), exiftool writes the fields a body writes at the
/// shutter.
@Suite struct PhotoHeaderIdentityTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("header-identity-\(UUID().uuidString)")

    init() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// A camera-like JPEG with `tags` written by exiftool (`-TAG=VALUE`); its bytes.
    func photo(_ name: String, seed: Int = 1, _ tags: [String]) throws -> [UInt8] {
        let url = folder.appendingPathComponent(name)
        try CameraJPEG.write(to: url, .init(width: 320, height: 240, seed: seed))
        if !tags.isEmpty {
            let exiftool = try #require(Subprocess.which("exiftool"), "exiftool is missing: run scripts/install-deps.sh")
            let result = try Subprocess.run(exiftool, ["-q", "-overwrite_original"] + tags + [url.path])
            #expect(result.status == 0, "\(result.stderr)")
        }
        return [UInt8](try Data(contentsOf: url))
    }

    static let canonTags = [
        "-Make=Canon", "-Model=Canon EOS R5", "-DateTimeOriginal=2026:11:27 10:15:03", "-SubSecTimeOriginal=42",
        "-ExifIFD:SerialNumber=052021001234", "-ImageUniqueID=8f2e1c0a9b7d4e6f8a1b2c3d4e5f6a7b", "-Artist=Ana López",
    ]

    @Test func whatTheCameraWroteIsWhatIsRead() throws {
        let bytes = try photo("canon.jpg", Self.canonTags)
        let identity = PhotoHeaderIdentity(head: Array(bytes.prefix(PhotoHeaderIdentity.readLength)))
        #expect(identity.make == "Canon")
        #expect(identity.model == "Canon EOS R5")
        #expect(identity.serial == "052021001234")
        #expect(identity.capturedAt == "2026:11:27 10:15:03")
        #expect(identity.subSeconds == "42")
        #expect(identity.uniqueID == "8f2e1c0a9b7d4e6f8a1b2c3d4e5f6a7b")
        #expect(identity.artist == "Ana López")
        #expect(identity.key == "exif|052021001234|2026:11:27 10:15:03.42|8f2e1c0a9b7d4e6f8a1b2c3d4e5f6a7b|")
        #expect(identity.summary.contains("body serial 052021001234, shot 2026:11:27 10:15:03.42"))
        #expect(identity.fileName(prefix: "IMG", fileExtension: "JPG") == "IMG_20261127_10150342.JPG")
        #expect(PhotoHeaderIdentity(head: bytes) == identity, "the first 64 KB say all the whole file says")
    }

    /// A rating written into the file later (in the camera, issue 41) changes its bytes, not
    /// what the camera wrote at the shutter: the photo keeps its identity.
    @Test func aRatingWrittenLaterKeepsTheIdentity() throws {
        let before = try photo("rated.jpg", Self.canonTags)
        let url = folder.appendingPathComponent("rated.jpg")
        let exiftool = try #require(Subprocess.which("exiftool"))
        #expect(try Subprocess.run(exiftool, ["-q", "-overwrite_original", "-XMP:Rating=3", url.path]).status == 0)
        let after = [UInt8](try Data(contentsOf: url))
        #expect(after != before)
        #expect(PhotoHeaderIdentity(head: after).key == PhotoHeaderIdentity(head: before).key)
    }

    /// Two frames of a burst in one second, by a body that writes no sub-seconds, id or count:
    /// the header's digest tells them apart; the same file read twice is the same photo.
    @Test func framesInOneSecondWithoutSubSecondsDifferByTheirHeader() throws {
        let tags = ["-Make=Sony", "-Model=ILCE-7M4", "-DateTimeOriginal=2026:11:27 10:15:03"]
        let first = PhotoHeaderIdentity(head: try photo("a.jpg", seed: 1, tags))
        let second = PhotoHeaderIdentity(head: try photo("b.jpg", seed: 2, tags))
        #expect(first.key.hasPrefix("exif||2026:11:27 10:15:03|||"))
        #expect(first.key != second.key)
        #expect(first.summary.contains("header SHA-256"))
        let again = [UInt8](try Data(contentsOf: folder.appendingPathComponent("a.jpg")))
        #expect(PhotoHeaderIdentity(head: Array(again.prefix(PhotoHeaderIdentity.readLength))).key == first.key)
    }

    /// No capture time at all: the digest of the header is the last resort.
    @Test func aFileWithoutCaptureTimeIsKnownByItsHeaderDigest() throws {
        let plain = try photo("plain.jpg", ["-all="])
        let identity = PhotoHeaderIdentity(head: plain)
        #expect(identity.capturedAt == nil)
        #expect(identity.key == "header|" + identity.digest)
        #expect(identity.fileName(prefix: "NIKON", fileExtension: "JPG") == nil)
        #expect(PhotoHeaderIdentity(head: try photo("other.jpg", seed: 9, ["-all="])).key != identity.key)
    }

    /// Cut anywhere, or damaged, a header gives fewer fields, never a crash.
    @Test func cutOrDamagedHeadersAreReadSafely() throws {
        let bytes = try photo("cut.jpg", Self.canonTags)
        for length in stride(from: 0, to: min(bytes.count, 4096), by: 7) {
            let identity = PhotoHeaderIdentity(head: Array(bytes.prefix(length)))
            #expect(identity.key.hasPrefix("exif|") || identity.key.hasPrefix("header|"))
        }
        var random = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            var damaged = Array(bytes.prefix(4096))
            for _ in 0..<8 { damaged[Int.random(in: 2..<damaged.count, using: &random)] = UInt8.random(in: 0...255, using: &random) }
            _ = PhotoHeaderIdentity(head: damaged).key
        }
    }

    /// A TIFF-based RAW is its own TIFF structure: the same fields are read from its start.
    @Test func aTIFFBasedRAWIsReadFromItsOwnDirectories() throws {
        let jpeg = try photo("for-raw.jpg", Self.canonTags)
        let exif = try #require(JPEGSegments.leadingSegments(jpeg).first { $0.kind == .exif })
        let tiff = Array(jpeg[exif.body].dropFirst(JPEGSegments.exifSignatureLength))
        let identity = PhotoHeaderIdentity(head: tiff)
        #expect(identity.key == PhotoHeaderIdentity(head: jpeg).key)
    }
}
