/// One 8-bit plane of an image (luma, a chroma channel, or grey), rows packed without padding.
///
/// Renditions work plane by plane in the JPEG's own YUV: no colour conversion on the way in or
/// out, and subsampled chroma is half the work.
public struct PixelPlane: Equatable, Sendable {
    public var width: Int
    public var height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height, "a plane holds width × height pixels")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    public init(width: Int, height: Int, fill: UInt8 = 0) {
        self.init(width: width, height: height, pixels: [UInt8](repeating: fill, count: width * height))
    }

    public subscript(x: Int, y: Int) -> UInt8 {
        get { pixels[y * width + x] }
        set { pixels[y * width + x] = newValue }
    }

    /// This plane turned upright for `orientation`.
    public func oriented(_ orientation: ExifOrientation) -> PixelPlane {
        let map = orientation.mapping
        if orientation == .up { return self }
        let (outWidth, outHeight) = orientation.displaySize(width: width, height: height)
        var out = [UInt8](repeating: 0, count: pixels.count)
        let w = width
        let h = height
        pixels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                for oy in 0..<outHeight {
                    let row = oy * outWidth
                    for ox in 0..<outWidth {
                        let u = map.swapsAxes ? oy : ox
                        let v = map.swapsAxes ? ox : oy
                        let sx = map.flipsX ? w - 1 - u : u
                        let sy = map.flipsY ? h - 1 - v : v
                        target[row + ox] = source[sy * w + sx]
                    }
                }
            }
        }
        return PixelPlane(width: outWidth, height: outHeight, pixels: out)
    }
}
