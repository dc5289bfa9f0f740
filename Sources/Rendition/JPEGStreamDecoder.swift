import CJPEGStream

/// libjpeg decoding one photo at a time as its bytes arrive, at a DCT-domain scale, straight to
/// the image's own planes (Y, Cb, Cr, or grey), strip by strip.
///
/// Fed the same bytes in any pieces, it gives the same planes: libjpeg's suspending source backs
/// up to where it can go on once more input comes. Not thread-safe: one per rendition thread,
/// reused photo after photo (``reset()``).
final class JPEGStreamDecoder {
    private let stream: OpaquePointer
    /// The current photo's planes, allocated when its decoding starts.
    private var planes: [UnsafeMutableBufferPointer<UInt8>] = []
    /// Their sizes.
    private(set) var planeSizes: [(width: Int, height: Int)] = []

    struct Header: Equatable {
        var width: Int
        var height: Int
        var components: Int
        /// Progressive (or otherwise multi-scan): no row is out before the last scan arrives.
        var multipleScans: Bool
        var isGray: Bool { components == 1 }
    }

    /// What libjpeg said of a photo it cannot decode (its own wording, as TurboJPEG's).
    struct Failure: Error, Equatable, CustomStringConvertible {
        var description: String
    }

    init() throws(Failure) {
        guard let stream = relay_jpeg_stream_create() else { throw Failure(description: "libjpeg could not start a decoder") }
        self.stream = stream
    }

    deinit {
        relay_jpeg_stream_destroy(stream)
        for plane in planes { plane.deallocate() }
    }

    /// Forgets the photo and its input: the next byte appended is the first of a photo.
    func reset() {
        relay_jpeg_stream_reset(stream)
        for plane in planes { plane.deallocate() }
        planes = []
        planeSizes = []
    }

    func append(_ bytes: UnsafeRawBufferPointer) throws(Failure) {
        guard let base = bytes.bindMemory(to: UInt8.self).baseAddress, !bytes.isEmpty else { return }
        guard relay_jpeg_stream_append(stream, base, bytes.count) == 0 else {
            throw Failure(description: "out of memory for the photo's bytes")
        }
    }

    /// No byte follows: a decoder that still wants some fails with libjpeg's "Premature end".
    func endInput() { relay_jpeg_stream_end_input(stream) }

    /// Bytes appended and not yet consumed.
    var buffered: Int { relay_jpeg_stream_buffered(stream) }

    /// The photo's header, or nil until enough bytes arrived for it.
    func header() throws(Failure) -> Header? {
        var header = relay_jpeg_header()
        guard try check(relay_jpeg_stream_read_header(stream, &header)) else { return nil }
        return Header(
            width: Int(header.width), height: Int(header.height), components: Int(header.components),
            multipleScans: header.multiple_scans != 0)
    }

    /// Starts decoding at `scale`, into planes of the sizes it returns; nil until enough bytes
    /// arrived (a multi-scan photo takes in every scan first).
    func start(scale: RenditionGeometry.Scale) throws(Failure) -> [(width: Int, height: Int)]? {
        var layout = relay_jpeg_layout()
        guard try check(relay_jpeg_stream_start(stream, UInt32(scale.numerator), UInt32(scale.denominator), &layout)) else {
            return nil
        }
        let widths = [layout.width.0, layout.width.1, layout.width.2]
        let heights = [layout.height.0, layout.height.1, layout.height.2]
        let sizes = zip(widths, heights).filter { $0.0 > 0 }.map { (width: Int($0.0), height: Int($0.1)) }
        if planes.isEmpty {
            planes = sizes.map { .allocate(capacity: $0.width * $0.height) }
            planeSizes = sizes
        }
        return sizes
    }

    /// Decodes every strip the bytes so far allow. True once every row is out.
    func readStrips() throws(Failure) -> Bool {
        let pointers: [UnsafeMutablePointer<UInt8>?] = planes.map(\.baseAddress)
        while true {
            let status = pointers.withUnsafeBufferPointer { relay_jpeg_stream_read_strip(stream, $0.baseAddress) }
            switch status {
            case RELAY_JPEG_READY: continue
            case RELAY_JPEG_DONE: return true
            case RELAY_JPEG_NEEDS_INPUT: return false
            default: throw Failure(description: message)
            }
        }
    }

    /// Where plane `component` is decoded into (its first ``rows(_:)`` rows are done).
    func plane(_ component: Int) -> UnsafePointer<UInt8> { UnsafePointer(planes[component].baseAddress!) }

    /// Reads on to the end of the image (EOI): true once there.
    func finish() throws(Failure) -> Bool {
        try check(relay_jpeg_stream_finish(stream))
    }

    /// The rows of plane `component` decoded so far.
    func rows(_ component: Int) -> Int { Int(relay_jpeg_stream_rows(stream, Int32(component))) }

    private var message: String { String(cString: relay_jpeg_stream_message(stream)) }

    /// True when the call did its work, false when it needs input; a failure throws.
    private func check(_ status: relay_jpeg_status) throws(Failure) -> Bool {
        switch status {
        case RELAY_JPEG_READY, RELAY_JPEG_DONE: return true
        case RELAY_JPEG_NEEDS_INPUT: return false
        default: throw Failure(description: message)
        }
    }
}
