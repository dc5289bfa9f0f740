import RelayCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The loupe's picture of a photo: fitted so that its upright long edge is a screen's, turned
/// upright, encoded small (no metadata but the ICC profile). Made as a rendition is (decoded at
/// the DCT scale nearest above the size, so a 45-megapixel photo fitted to a phone is decoded
/// at 1/4 or 1/8, then resampled), but from a finished file and into memory, and a photo already
/// that small is re-encoded upright at its own size rather than sent as it is.
public enum FittedPicture {
    /// The JPEG open at `fd` fitted to `longEdge` px (never enlarged), at `quality`.
    public static func make(fd: Int32, longEdge: Int, quality: Int) throws(PictureError) -> [UInt8] {
        let decoder: JPEGStreamDecoder
        let encoder: JPEGStreamEncoder
        do { decoder = try JPEGStreamDecoder() } catch { throw .io(error.description) }
        do { encoder = try JPEGStreamEncoder() } catch { throw .io(error.description) }
        var input = FileInput(fd: fd)
        var head: [UInt8] = []
        let header = try input.pump(decoder, collecting: &head) { () throws(JPEGStreamDecoder.Failure) in try decoder.header() }
        let spec = RenditionSpec(maxEdge: longEdge, quality: quality, keepMetadata: false)
        let plan: RenditionPlan
        switch RenditionPlan.make(head, header: header, spec: spec, alwaysDecodes: true) {
        case .failure(let unusable): throw .undecodable(unusable.reason)
        case .success(let made): plan = made
        }
        guard case .resize(let size, let scale) = plan.work else { throw .undecodable("it cannot be resized") }
        var none: [UInt8]?
        let sources = try input.pump(decoder, collecting: &none) { () throws(JPEGStreamDecoder.Failure) in
            try decoder.start(scale: scale)
        }
        return try PictureJPEG.scratch { output throws(PictureError) in
            let writer = RenditionWriter(plan: plan, size: size, sourceSizes: sources, quality: quality, encoder: encoder, fd: output)
            var failure: JPEGStreamEncoder.Failure?
            _ = try input.pump(decoder, collecting: &none) { () throws(JPEGStreamDecoder.Failure) -> Bool? in
                let done = try decoder.readStrips()
                do throws(JPEGStreamEncoder.Failure) { try writer.take(from: decoder) } catch {
                    failure = error
                    return true
                }
                return done ? true : nil
            }
            do {
                if let failure { throw failure }
                try writer.finish()
            } catch {
                encoder.abort()
                throw .io("the picture could not be encoded (\(error))")
            }
        }
    }

    /// A finished file read in order, in pieces, into a decoder.
    private struct FileInput {
        let fd: Int32
        var offset: off_t = 0
        var ended = false

        /// Runs `step` until it gives a value, appending the file's next piece to `decoder`
        /// (and to `collecting`, when given) each time it asks for more; once the file ended, the
        /// decoder fails where it still wants bytes.
        mutating func pump<Value>(
            _ decoder: JPEGStreamDecoder, collecting: inout [UInt8]?, _ step: () throws(JPEGStreamDecoder.Failure) -> Value?
        ) throws(PictureError) -> Value {
            while true {
                do {
                    if let value = try step() { return value }
                } catch { throw .undecodable(error.description) }
                guard !ended else { throw .undecodable("it ends before its image does") }
                var chunk = [UInt8](repeating: 0, count: RenditionMaker.chunkSize)
                var count: Int
                repeat {
                    count = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
                } while count < 0 && errno == EINTR
                guard count >= 0 else { throw .io("\(Errno.current("read"))") }
                offset += off_t(count)
                if count == 0 {
                    ended = true
                    decoder.endInput()
                    continue
                }
                collecting?.append(contentsOf: chunk[..<count])
                let refused = chunk.withUnsafeBytes { bytes -> JPEGStreamDecoder.Failure? in
                    do throws(JPEGStreamDecoder.Failure) {
                        try decoder.append(UnsafeRawBufferPointer(rebasing: bytes.prefix(count)))
                        return nil
                    } catch { return error }
                }
                if let refused { throw .io(refused.description) }
            }
        }

        /// As ``pump(_:collecting:_:)``, keeping every piece read in `head`.
        mutating func pump<Value>(
            _ decoder: JPEGStreamDecoder, collecting head: inout [UInt8], _ step: () throws(JPEGStreamDecoder.Failure) -> Value?
        ) throws(PictureError) -> Value {
            var kept: [UInt8]? = head
            defer { head = kept ?? [] }
            return try pump(decoder, collecting: &kept, step)
        }
    }
}
