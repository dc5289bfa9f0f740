import CJPEGStream
import RelayCore

/// libjpeg encoding a rendition strip by strip from its planes, straight into a file, so the
/// file grows while the photo's lower rows are still being decoded. Settings as TurboJPEG's
/// (baseline quality tables, the fast DCT below quality 96, JFIF unless the EXIF replaces it).
///
/// Not thread-safe: one per rendition thread, reused image after image.
final class JPEGStreamEncoder {
    private let encoder: OpaquePointer

    /// A failed encoding: libjpeg's words, or the write that failed.
    enum Failure: Error, Equatable, CustomStringConvertible {
        case codec(String)
        case writing(Errno)

        var description: String {
            switch self {
            case .codec(let message): message
            case .writing(let errno): "\(errno)"
            }
        }
    }

    init() throws(Failure) {
        guard let encoder = relay_jpeg_encoder_create() else { throw .codec("libjpeg could not start an encoder") }
        self.encoder = encoder
    }

    deinit { relay_jpeg_encoder_destroy(encoder) }

    /// The chroma of a rendition: 4:2:0 as galleries' and cameras' own JPEGs, 4:4:4 from
    /// quality 90 on (as libvips), or none for a grey photo.
    enum Chroma: Equatable {
        case grey, half, full

        /// The size of plane `component` of a `width`×`height` image.
        func planeSize(_ component: Int, width: Int, height: Int) -> (width: Int, height: Int) {
            component == 0 || self == .full ? (width, height) : ((width + 1) / 2, (height + 1) / 2)
        }

        var planes: Int { self == .grey ? 1 : 3 }
    }

    /// Starts an image written to `fd`, with the application segments (marker, body) after
    /// SOI (and JFIF when `jfif`).
    func start(
        fd: Int32, width: Int, height: Int, chroma: Chroma, quality: Int, jfif: Bool, segments: [(UInt8, [UInt8])]
    ) throws(Failure) {
        let status = relay_jpeg_encoder_start(
            encoder, fd, Int32(width), Int32(height), chroma == .grey ? 1 : 3, chroma == .half ? 1 : 0, Int32(quality), jfif ? 1 : 0)
        guard status == 0 else { throw failure() }
        for (marker, body) in segments {
            let written = body.withUnsafeBufferPointer {
                relay_jpeg_encoder_write_marker(encoder, Int32(marker), $0.baseAddress, UInt32($0.count))
            }
            guard written == 0 else { throw failure() }
        }
    }

    /// The rows of plane `component` each strip takes.
    func stripRows(_ component: Int) -> Int { Int(relay_jpeg_encoder_strip_rows(encoder, Int32(component))) }

    /// Encodes one strip: `rows[c]` points at its first row in plane `c` (`strides[c]` apart),
    /// `available[c]` of them real (the rest repeat the last).
    func writeStrip(_ rows: [UnsafePointer<UInt8>?], strides: [Int], available: [Int]) throws(Failure) {
        let strides32 = strides.map(Int32.init)
        let available32 = available.map(Int32.init)
        let status = rows.withUnsafeBufferPointer { rowPointers in
            strides32.withUnsafeBufferPointer { stridePointers in
                available32.withUnsafeBufferPointer { availablePointers in
                    relay_jpeg_encoder_write_strip(
                        encoder, rowPointers.baseAddress, stridePointers.baseAddress, availablePointers.baseAddress)
                }
            }
        }
        guard status == 0 else { throw failure() }
    }

    func finish() throws(Failure) {
        guard relay_jpeg_encoder_finish(encoder) == 0 else { throw failure() }
    }

    /// Drops the image under way.
    func abort() { relay_jpeg_encoder_abort(encoder) }

    /// Bytes written to the file so far.
    var written: Int64 { Int64(relay_jpeg_encoder_written(encoder)) }

    private func failure() -> Failure {
        let code = relay_jpeg_encoder_errno(encoder)
        if code != 0 { return .writing(Errno(call: "write", code: code)) }
        return .codec(String(cString: relay_jpeg_encoder_message(encoder)))
    }
}
