import CTurboJPEG

/// libjpeg-turbo's TurboJPEG API for one thread: a decoder and an encoder handle, used for
/// decoding a JPEG at a DCT-domain scale straight to its YUV planes and encoding planes back.
///
/// Not thread-safe (TurboJPEG handles are not): one per rendition thread.
final class TurboJPEG {
    private let decoder: tjhandle
    private let encoder: tjhandle

    struct Header {
        var width: Int
        var height: Int
        /// TurboJPEG's TJSAMP value.
        var subsampling: Int32
        var isGray: Bool { subsampling == Int32(TJSAMP_GRAY.rawValue) }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init() throws(Failure) {
        guard let decoder = tjInitDecompress() else { throw Failure(description: "libjpeg-turbo could not start a decoder") }
        guard let encoder = tjInitCompress() else {
            tjDestroy(decoder)
            throw Failure(description: "libjpeg-turbo could not start an encoder")
        }
        self.decoder = decoder
        self.encoder = encoder
    }

    deinit {
        tjDestroy(decoder)
        tjDestroy(encoder)
    }

    /// The scales the decoder can apply in the DCT domain.
    static let scales: [RenditionGeometry.Scale] = {
        var count: Int32 = 0
        guard let factors = tjGetScalingFactors(&count) else { return [RenditionGeometry.Scale(1, 1)] }
        return (0..<Int(count)).map { RenditionGeometry.Scale(Int(factors[$0].num), Int(factors[$0].denom)) }
    }()

    private func failure(_ handle: tjhandle) -> Failure {
        Failure(description: String(cString: tjGetErrorStr2(handle)))
    }

    func header(_ jpeg: UnsafeRawBufferPointer) throws(Failure) -> Header {
        var width: Int32 = 0
        var height: Int32 = 0
        var subsampling: Int32 = 0
        var colorspace: Int32 = 0
        let base = jpeg.bindMemory(to: UInt8.self).baseAddress
        guard tjDecompressHeader3(decoder, base, UInt(jpeg.count), &width, &height, &subsampling, &colorspace) == 0 else {
            throw failure(decoder)
        }
        guard colorspace == Int32(TJCS_YCbCr.rawValue) || colorspace == Int32(TJCS_GRAY.rawValue) else {
            throw Failure(description: "it is a CMYK or RGB-coded JPEG, which renditions do not handle")
        }
        return Header(width: Int(width), height: Int(height), subsampling: subsampling)
    }

    /// The photo decoded at `scale`, as its planes (Y, or Y, Cb, Cr). A warning (corrupt or
    /// cut-off data) is a failure: a rendition must not show grey where the photo was damaged.
    func decodePlanes(_ jpeg: UnsafeRawBufferPointer, header: Header, scale: RenditionGeometry.Scale) throws(Failure) -> [PixelPlane] {
        let width = scale.apply(header.width)
        let height = scale.apply(header.height)
        let count = header.isGray ? 1 : 3
        let sizes = (0..<count).map { component in
            (
                Int(tjPlaneWidth(Int32(component), Int32(width), header.subsampling)),
                Int(tjPlaneHeight(Int32(component), Int32(height), header.subsampling))
            )
        }
        let buffers = sizes.map { UnsafeMutableBufferPointer<UInt8>.allocate(capacity: $0.0 * $0.1) }
        defer { for buffer in buffers { buffer.deallocate() } }
        var pointers: [UnsafeMutablePointer<UInt8>?] = buffers.map(\.baseAddress)
        var strides: [Int32] = sizes.map { Int32($0.0) }
        let base = jpeg.bindMemory(to: UInt8.self).baseAddress
        let status = tjDecompressToYUVPlanes(
            decoder, base, UInt(jpeg.count), &pointers, Int32(width), &strides,
            Int32(height), TJFLAG_STOPONWARNING)
        guard status == 0 else { throw failure(decoder) }
        return zip(sizes, buffers).map { PixelPlane(width: $0.0.0, height: $0.0.1, pixels: Array($0.1)) }
    }

    /// Encodes planes laid out for `subsampling` (TJSAMP) at `quality`.
    func encode(_ planes: [PixelPlane], width: Int, height: Int, subsampling: Int32, quality: Int) throws(Failure) -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        var strides = planes.map { Int32($0.width) }
        let status = Self.withPlanePointers(planes[...], []) { pointers in
            var sources = pointers
            return tjCompressFromYUVPlanes(
                encoder, &sources, Int32(width), &strides, Int32(height), subsampling,
                &output, &size, Int32(quality), 0)
        }
        defer { if let output { tjFree(output) } }
        guard status == 0, let output else { throw failure(encoder) }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }

    private static func withPlanePointers(
        _ planes: ArraySlice<PixelPlane>, _ pointers: [UnsafePointer<UInt8>?], _ body: ([UnsafePointer<UInt8>?]) -> Int32
    ) -> Int32 {
        guard let first = planes.first else { return body(pointers) }
        return first.pixels.withUnsafeBufferPointer { buffer in
            withPlanePointers(planes.dropFirst(), pointers + [buffer.baseAddress], body)
        }
    }
}
