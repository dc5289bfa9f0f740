import CJPEGStream

/// A rectangle of a picture, in pixels.
public struct PixelRect: Equatable, Sendable, CustomStringConvertible {
    public var left: Int
    public var top: Int
    public var width: Int
    public var height: Int

    public init(left: Int, top: Int, width: Int, height: Int) {
        self.left = left
        self.top = top
        self.width = width
        self.height = height
    }

    public var description: String { "\(width)×\(height) at (\(left), \(top))" }
}

/// The loupe's 100 % view: a rectangle of the original, one photo pixel per screen pixel,
/// decoded without the rest of the photo (libjpeg-turbo skips the rows above it and decodes only
/// the block columns under it), turned upright and encoded. The rectangle is asked for upright
/// (as the editor sees the photo) and mapped back onto the stored pixels first.
public enum PhotoCrop {
    /// The sides a crop may have, in pixels: a phone's screen at least, a 4K screen's short side
    /// at most (a larger crop would cost more than the loupe's picture it zooms into).
    public static let sideRange = 64...2400

    /// The upright rectangle `width`×`height` (each clamped to ``sideRange`` and to the picture)
    /// centred on the point (`x`, `y`), given as fractions of the upright picture, moved inside it.
    public static func upright(x: Double, y: Double, width: Int, height: Int, in head: PhotoHead) -> PixelRect {
        let size = head.upright
        let w = min(size.width, min(max(width, sideRange.lowerBound), sideRange.upperBound))
        let h = min(size.height, min(max(height, sideRange.lowerBound), sideRange.upperBound))
        let place = { (fraction: Double, side: Int, whole: Int) -> Int in
            let start = (fraction * Double(whole) - Double(side) / 2).rounded()
            return min(max(Int(start.isFinite ? start : 0), 0), whole - side)
        }
        return PixelRect(left: place(x, w, size.width), top: place(y, h, size.height), width: w, height: h)
    }

    /// Where the upright rectangle `rect` lies in the stored pixels of `head`'s photo: the
    /// orientation's quarter turn swaps the axes, its mirrors count from the other edge.
    public static func stored(_ rect: PixelRect, in head: PhotoHead) -> PixelRect {
        let map = head.orientation.mapping
        let across = map.swapsAxes ? (rect.top, rect.height) : (rect.left, rect.width)
        let down = map.swapsAxes ? (rect.left, rect.width) : (rect.top, rect.height)
        let left = map.flipsX ? head.width - across.0 - across.1 : across.0
        let top = map.flipsY ? head.height - down.0 - down.1 : down.0
        return PixelRect(left: left, top: top, width: across.1, height: down.1)
    }

    /// The upright rectangle `rect` of the JPEG open at `fd` (whose head is `head`), as a JPEG
    /// at `quality` carrying the photo's ICC profile.
    public static func make(fd: Int32, head: PhotoHead, upright rect: PixelRect, quality: Int) throws(PictureError) -> [UInt8] {
        let area = stored(rect, in: head)
        let count = area.width * area.height
        var (luma, blue, red) = (
            [UInt8](repeating: 0, count: count), [UInt8](repeating: 0, count: count), [UInt8](repeating: 0, count: count)
        )
        var components: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = luma.withUnsafeMutableBufferPointer { luma in
            blue.withUnsafeMutableBufferPointer { blue in
                red.withUnsafeMutableBufferPointer { red in
                    let pointers: [UnsafeMutablePointer<UInt8>?] = [luma.baseAddress, blue.baseAddress, red.baseAddress]
                    return pointers.withUnsafeBufferPointer {
                        relay_jpeg_crop(
                            fd, Int32(area.left), Int32(area.top), Int32(area.width), Int32(area.height), $0.baseAddress, &components,
                            &message, message.count)
                    }
                }
            }
        }
        guard status == 0 else {
            throw .undecodable(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        let upright = [luma, blue, red].prefix(Int(components)).map {
            PixelPlane(width: area.width, height: area.height, pixels: $0).oriented(head.orientation)
        }
        return try PictureJPEG.encode(upright, quality: quality, segments: head.iccSegments.map { (0xE2, $0) })
    }
}
