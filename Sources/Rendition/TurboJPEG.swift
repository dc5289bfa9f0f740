import CTurboJPEG

/// libjpeg-turbo's TurboJPEG API for one thread: an encoder of YUV planes, and the scales its
/// decoder (``JPEGStreamDecoder``, libjpeg underneath) applies in the DCT domain.
///
/// Not thread-safe (TurboJPEG handles are not): one per rendition thread.
final class TurboJPEG {
    private let encoder: tjhandle

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init() throws(Failure) {
        guard let encoder = tjInitCompress() else { throw Failure(description: "libjpeg-turbo could not start an encoder") }
        self.encoder = encoder
    }

    deinit { tjDestroy(encoder) }

    /// The scales the decoder can apply in the DCT domain.
    static let scales: [RenditionGeometry.Scale] = {
        var count: Int32 = 0
        guard let factors = tjGetScalingFactors(&count) else { return [RenditionGeometry.Scale(1, 1)] }
        return (0..<Int(count)).map { RenditionGeometry.Scale(Int(factors[$0].num), Int(factors[$0].denom)) }
    }()

    private func failure(_ handle: tjhandle) -> Failure {
        Failure(description: String(cString: tjGetErrorStr2(handle)))
    }

    /// Encodes planes laid out for `subsampling` (TJSAMP) at `quality`.
    func encode(_ planes: [PixelPlane], width: Int, height: Int, subsampling: Int32, quality: Int) throws(Failure) -> [UInt8] {
        // TurboJPEG reads each plane at its padded size (an odd height of 4:2:0 luma has one
        // row more): the edge rows and columns are repeated out to it.
        let padded = planes.enumerated().map { component, plane in
            plane.padded(
                width: Int(tjPlaneWidth(Int32(component), Int32(width), subsampling)),
                height: Int(tjPlaneHeight(Int32(component), Int32(height), subsampling)))
        }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        var strides = padded.map { Int32($0.width) }
        let status = Self.withPlanePointers(padded[...], []) { pointers in
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
