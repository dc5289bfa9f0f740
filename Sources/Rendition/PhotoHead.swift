import CJPEGStream
import PhotoMetadata
import RelayCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a photo's head says about its pixels, read without decoding any: the stored size, the
/// EXIF orientation that turns it upright, and the ICC profile its pictures must carry so that
/// an Adobe RGB photo keeps its colours. The loupe reads it to choose a picture's size and to
/// map an upright crop back onto the stored pixels.
public struct PhotoHead: Sendable, Equatable {
    /// The stored size, as the frame header says (before the orientation is applied).
    public var width: Int
    public var height: Int
    /// 1 (grey) or 3 (YCbCr).
    public var components: Int
    public var orientation: ExifOrientation
    /// The ICC profile's segments (APP2 bodies), in order.
    var iccSegments: [[UInt8]] = []

    public init(width: Int, height: Int, components: Int = 3, orientation: ExifOrientation = .up) {
        self.width = width
        self.height = height
        self.components = components
        self.orientation = orientation
    }

    /// The size as the photo is seen, turned upright.
    public var upright: (width: Int, height: Int) { orientation.displaySize(width: width, height: height) }

    public var longEdge: Int { max(width, height) }

    /// The head of the JPEG open at `fd` (read with pread: the offset is left alone).
    public static func read(_ fd: Int32) throws(PictureError) -> PhotoHead {
        var failure: PictureError?
        let head = JPEGSegments.readHead(limit: 1 << 20) { offset, count -> [UInt8]? in
            var bytes = [UInt8](repeating: 0, count: count)
            var got: Int
            repeat {
                got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
            } while got < 0 && errno == EINTR
            guard got >= 0 else {
                failure = .io("\(Errno.current("read"))")
                return nil
            }
            return Array(bytes.prefix(got))
        }
        if let failure { throw failure }
        guard let head, let segments = try? JPEGSegments(head) else { throw .undecodable("it is not a JPEG") }
        var width: Int32 = 0
        var height: Int32 = 0
        var components: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        guard relay_jpeg_crop_header(fd, &width, &height, &components, &message, message.count) == 0 else {
            throw .undecodable(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        var photo = PhotoHead(width: Int(width), height: Int(height), components: Int(components))
        for segment in segments.segments {
            switch segment.kind {
            case .exif:
                let tiff = Array(head[segment.body.dropFirst(JPEGSegments.exifSignatureLength)])
                if let exif = try? ExifEditor(tiff: tiff) { photo.orientation = exif.orientation }
            case .icc:
                photo.iccSegments.append(Array(head[segment.body]))
            default:
                break
            }
        }
        return photo
    }
}
