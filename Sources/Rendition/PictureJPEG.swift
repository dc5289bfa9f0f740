import RelayCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A page's picture encoded in memory: libjpeg writes it into an unlinked scratch file
/// (`tmpfile`), which is read back, so the encoder that writes renditions to their files serves
/// here unchanged and nothing is left on disk.
enum PictureJPEG {
    /// The bytes `body` encodes into a scratch file it is handed.
    static func scratch(_ body: (Int32) throws(PictureError) -> Void) throws(PictureError) -> [UInt8] {
        guard let file = tmpfile() else { throw .io("no scratch file for the picture: \(Errno.current("tmpfile"))") }
        defer { fclose(file) }
        let fd = fileno(file)
        try body(fd)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 256 * 1024)
        while true {
            var count: Int
            repeat {
                count = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(bytes.count)) }
            } while count < 0 && errno == EINTR
            guard count >= 0 else { throw .io("cannot read the picture back: \(Errno.current("read"))") }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
        }
    }

    /// Upright `planes` (luma and two chroma planes of the same size, or grey) as a 4:2:0 JPEG
    /// (grey stays grey) at `quality`, with `segments` (marker, body) after SOI and JFIF.
    static func encode(_ planes: [PixelPlane], quality: Int, segments: [(UInt8, [UInt8])]) throws(PictureError) -> [UInt8] {
        let encoder: JPEGStreamEncoder
        do { encoder = try JPEGStreamEncoder() } catch { throw .io(error.description) }
        let chroma: JPEGStreamEncoder.Chroma = planes.count == 1 ? .grey : .half
        let sized = planes.enumerated().map { $0.offset == 0 ? $0.element : halved($0.element) }
        let (width, height) = (planes[0].width, planes[0].height)
        return try scratch { fd throws(PictureError) in
            do {
                try encoder.start(fd: fd, width: width, height: height, chroma: chroma, quality: quality, jfif: true, segments: segments)
                var strip = 0
                while strip * encoder.stripRows(0) < height {
                    let first = sized.indices.map { strip * encoder.stripRows($0) }
                    var failure: JPEGStreamEncoder.Failure?
                    withBaseAddresses(sized.map(\.pixels)[...], []) { bases in
                        let rows = sized.indices.map { c in bases[c].map { $0 + min(first[c], sized[c].height - 1) * sized[c].width } }
                        let available = sized.indices.map { max(1, sized[$0].height - first[$0]) }
                        do throws(JPEGStreamEncoder.Failure) {
                            try encoder.writeStrip(rows, strides: sized.map(\.width), available: available)
                        } catch { failure = error }
                    }
                    if let failure { throw failure }
                    strip += 1
                }
                try encoder.finish()
            } catch {
                encoder.abort()
                throw .io("the picture could not be encoded (\(error))")
            }
        }
    }

    /// A full-size chroma plane at half size both ways (each sample the mean of its 2×2 block),
    /// as 4:2:0 encodes it.
    static func halved(_ plane: PixelPlane) -> PixelPlane {
        let width = (plane.width + 1) / 2
        let height = (plane.height + 1) / 2
        var out = [UInt8](repeating: 0, count: width * height)
        let (sourceWidth, sourceHeight) = (plane.width, plane.height)
        plane.pixels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                for y in 0..<height {
                    let top = 2 * y * sourceWidth
                    let bottom = min(2 * y + 1, sourceHeight - 1) * sourceWidth
                    for x in 0..<width {
                        let left = 2 * x
                        let right = min(left + 1, sourceWidth - 1)
                        let sum =
                            Int(source[top + left]) + Int(source[top + right]) + Int(source[bottom + left]) + Int(source[bottom + right])
                        target[y * width + x] = UInt8((sum + 2) >> 2)
                    }
                }
            }
        }
        return PixelPlane(width: width, height: height, pixels: out)
    }

    private static func withBaseAddresses(
        _ arrays: ArraySlice<[UInt8]>, _ bases: [UnsafePointer<UInt8>?], _ body: ([UnsafePointer<UInt8>?]) -> Void
    ) {
        guard let first = arrays.first else { return body(bases) }
        first.withUnsafeBufferPointer { withBaseAddresses(arrays.dropFirst(), bases + [$0.baseAddress], body) }
    }
}
