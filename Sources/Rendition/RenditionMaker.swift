import CTurboJPEG
import Foundation
import RelayCore

/// Makes the gallery copy of one photo: decoded at the DCT scale nearest above the target,
/// resampled to the exact size, turned upright, encoded, with the photo's metadata carried over.
///
/// The photo may be fed as it arrives (``begin()``, ``feed(_:)``, ``finish(photo:name:destination:)``):
/// each piece is decoded at once, so that when the last byte comes only the last rows, the
/// resampling and the encoding remain. Fed in any pieces, a photo gives the same rendition.
///
/// One maker per thread (it owns its libjpeg decoder and TurboJPEG encoder), one photo at a time.
/// Only the scaled image is ever decoded: a 45-megapixel photo made 2048 px wide is decoded at 1/4
/// (about 8 MB), never at full size.
public final class RenditionMaker {
    public let spec: RenditionSpec
    private let codec: TurboJPEG
    private let decoder: JPEGStreamDecoder
    private var stage = Stage.collecting
    /// The bytes fed until the header was read: the metadata segments are taken from them.
    private var head: [UInt8] = []
    private var plan: Plan?

    /// How far the photo being fed has got.
    private enum Stage {
        case collecting, starting, decoding, finishing
        /// Encoded: only its writing is left.
        case made([UInt8])
        /// Needs no decoding: sent as it is, or copied with edited metadata.
        case undecoded
        /// Sent as the original, for this reason.
        case failed(String)
    }

    public init(spec: RenditionSpec) throws(RenditionError) {
        self.spec = spec
        do { codec = try TurboJPEG() } catch { throw .codec(error.description) }
        do { decoder = try JPEGStreamDecoder() } catch { throw .codec(error.description) }
    }

    /// What became of a photo.
    public enum Outcome: Equatable, Sendable {
        /// A rendition was written: its size in bytes and pixels, and what was noticed on the way
        /// (metadata that could not be kept).
        case made(bytes: Int64, width: Int, height: Int, notes: [String])
        /// The original is sent instead, for this reason (already small, not a JPEG, damaged).
        case original(reason: String)
    }

    /// Whether the maker wants more of the photo.
    public enum Progress: Equatable, Sendable {
        case needsBytes
        /// The rest of the photo is not needed (it is decoded, or will not be).
        case hasEnough
    }

    /// Makes the rendition of the photo at `source` into `destination` (created, written in
    /// full and fsynced). Damage in the photo is an `.original` outcome, never an error: the
    /// photo still goes. Only reading the photo or writing the rendition can fail.
    public func make(source: URL, destination: URL) throws(RenditionError) -> Outcome {
        let fd = open(source.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .io(path: source.path, reason: "\(Errno.current("open"))") }
        defer { close(fd) }
        begin()
        var chunk = [UInt8](repeating: 0, count: Self.chunkSize)
        var offset: off_t = 0
        while true {
            let count = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
            guard count >= 0 else { throw .io(path: source.path, reason: "\(Errno.current("read"))") }
            if count == 0 { break }
            offset += off_t(count)
            let progress = chunk.withUnsafeBytes { feed(UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
            if progress == .hasEnough { break }
        }
        return try finish(photo: fd, name: source.path, destination: destination)
    }

    /// The size of the pieces a committed photo is read in: small enough to keep its pages out
    /// of memory, large enough to read it at disk speed.
    public static let chunkSize = 256 * 1024

    /// Starts a photo, forgetting any other (a download that was rewound starts again here).
    public func begin() {
        decoder.reset()
        stage = .collecting
        head = []
        plan = nil
    }

    /// Feeds the next bytes of the photo, in order from its first byte, and decodes what they
    /// allow.
    public func feed(_ bytes: UnsafeRawBufferPointer) -> Progress {
        switch stage {
        case .collecting: head += bytes
        case .starting, .decoding, .finishing: break
        case .made, .undecoded, .failed: return .hasEnough
        }
        do { try decoder.append(bytes) } catch {
            stage = .failed("the photo could not be decoded (\(error))")
            return .hasEnough
        }
        return advance()
    }

    /// Ends the photo: every byte of it was fed, or as many as ``feed(_:)`` wanted, and the
    /// photo (open at `photo`, read only to copy it with edited metadata; `name` is its path in
    /// messages) is complete. Writes the rendition into `destination` (created, written in full
    /// and fsynced).
    public func finish(photo: Int32, name: String, destination: URL) throws(RenditionError) -> Outcome {
        if advance() == .needsBytes {
            decoder.endInput()
            _ = advance()
        }
        let output: [UInt8]
        switch stage {
        case .made(let bytes):
            output = bytes
        case .undecoded:
            guard let plan, case .copyWithMetadata = plan.work else {
                if let plan, case .sendOriginal(let reason) = plan.work { return .original(reason: reason) }
                return .original(reason: "it is not a readable JPEG")
            }
            let data = try Self.readWhole(photo, path: name)
            output = Array(data.prefix(2)) + plan.metadata.bytes + Array(data[plan.segments.restStart...])
        case .failed(let reason):
            return .original(reason: reason)
        case .collecting, .starting, .decoding, .finishing:
            return .original(reason: "the photo could not be decoded (it ends before its image does)")
        }
        try Self.write(output, to: destination)
        let (width, height) = plan?.outputSize ?? (0, 0)
        return .made(bytes: Int64(output.count), width: width, height: height, notes: plan?.notes ?? [])
    }

    /// Takes the decoder as far as the bytes fed allow.
    private func advance() -> Progress {
        do {
            while true {
                switch stage {
                case .collecting:
                    guard let header = try decoder.header() else { return .needsBytes }
                    let prepared = prepare(head, header: header)
                    head = []
                    switch prepared {
                    case .failure(let reason):
                        stage = .failed(reason)
                    case .success(let ready):
                        plan = ready
                        if case .resize = ready.work { stage = .starting } else { stage = .undecoded }
                    }
                case .starting:
                    guard let plan, case .resize(_, let scale) = plan.work else { return .hasEnough }
                    guard try decoder.start(scale: scale) != nil else { return .needsBytes }
                    stage = .decoding
                case .decoding:
                    guard try decoder.readStrips() else { return .needsBytes }
                    stage = .finishing
                case .finishing:
                    guard try decoder.finish(), let plan, case .resize(let size, _) = plan.work else { return .needsBytes }
                    stage = .made(try render(decoder.decodedPlanes(), plan: plan, size: size))
                case .made, .undecoded, .failed:
                    return .hasEnough
                }
            }
        } catch {
            if case .collecting = stage {
                stage = .failed(Self.unreadable(head, error))
                head = []
            } else {
                stage = .failed("the photo could not be decoded (\(error))")
            }
            return .hasEnough
        }
    }

    /// Why a photo whose header libjpeg could not read is sent as it is.
    private static func unreadable(_ head: [UInt8], _ failure: any Error) -> String {
        do {
            _ = try JPEGSegments(head)
        } catch {
            return error == .notJPEG ? "it is not a JPEG" : "it is not a readable JPEG: \(error.description)"
        }
        return "it is not a readable JPEG (\(failure))"
    }

    // MARK: - Deciding

    private struct Plan {
        enum Work {
            case sendOriginal(String)
            case copyWithMetadata
            case resize(to: (width: Int, height: Int), scale: RenditionGeometry.Scale)
        }
        var header: JPEGStreamDecoder.Header
        var segments: JPEGSegments
        var orientation: ExifOrientation
        var work: Work
        /// The application segments the rendition carries, already edited.
        var metadata: Metadata
        var outputSize: (width: Int, height: Int)
        var notes: [String]
    }

    private enum Prepared {
        case success(Plan)
        case failure(String)
    }

    /// What to do with a photo, from its head (every byte up to its image data) and header.
    private func prepare(_ data: [UInt8], header: JPEGStreamDecoder.Header) -> Prepared {
        let segments: JPEGSegments
        do { segments = try JPEGSegments(data) } catch {
            return .failure(error == .notJPEG ? "it is not a JPEG" : "it is not a readable JPEG: \(error.description)")
        }
        var notes: [String] = []
        var exif: ExifEditor?
        if let segment = segments.segments.first(where: { $0.kind == .exif }) {
            do {
                exif = try ExifEditor(tiff: Array(data[segment.body.dropFirst(JPEGSegments.exifSignatureLength)]))
            } catch {
                notes.append("EXIF left out: \(error.description)")
            }
        }
        let orientation = exif?.orientation ?? .up
        guard let target = RenditionGeometry.target(width: header.width, height: header.height, maxEdge: spec.maxEdge) else {
            let small = "it is already \(header.width)×\(header.height), within \(spec.maxEdge) px"
            let mustEdit = (spec.stripGPS && (exif?.hasGPS ?? false)) || (!spec.keepMetadata && Self.hasRemovableMetadata(segments))
            guard mustEdit else {
                return .success(
                    Plan(
                        header: header, segments: segments, orientation: orientation, work: .sendOriginal(small),
                        metadata: Metadata(), outputSize: (header.width, header.height), notes: notes))
            }
            // Sent as it is, pixels untouched, but without what the config removes.
            let metadata = carriedMetadata(data, segments, exif: exif, upright: false, size: nil, asItIs: true, notes: &notes)
            return .success(
                Plan(
                    header: header, segments: segments, orientation: orientation, work: .copyWithMetadata,
                    metadata: metadata, outputSize: (header.width, header.height), notes: notes))
        }
        let scale = RenditionGeometry.decodeScale(width: header.width, height: header.height, target: target, scales: TurboJPEG.scales)
        let upright = orientation.displaySize(width: target.width, height: target.height)
        let metadata = carriedMetadata(
            data, segments, exif: exif, upright: orientation != .up, size: upright, asItIs: false,
            notes: &notes)
        return .success(
            Plan(
                header: header, segments: segments, orientation: orientation, work: .resize(to: target, scale: scale),
                metadata: metadata, outputSize: upright, notes: notes))
    }

    private static func hasRemovableMetadata(_ segments: JPEGSegments) -> Bool {
        segments.segments.contains { [.exif, .xmp, .extendedXMP, .iptc].contains($0.kind) }
    }

    /// The segments a rendition carries, edited, and whether an EXIF is among them.
    private struct Metadata {
        var bytes: [UInt8] = []
        var hasExif = false
    }

    /// The segments the rendition carries: EXIF (edited), XMP and IPTC when metadata is kept,
    /// and the ICC profile always. Re-encoded, it leaves out the rest: a camera's multi-picture
    /// index (MPF) and other vendors' segments describe the original file. Copied as it is
    /// (`asItIs`), it keeps everything the config does not remove.
    private func carriedMetadata(
        _ data: [UInt8], _ segments: JPEGSegments, exif: ExifEditor?, upright: Bool, size: (width: Int, height: Int)?,
        asItIs: Bool, notes: inout [String]
    ) -> Metadata {
        var out = Metadata()
        for segment in segments.segments {
            switch segment.kind {
            case .icc:
                out.bytes += data[segment.range]
            case .xmp, .extendedXMP, .iptc:
                if spec.keepMetadata { out.bytes += data[segment.range] }
            case .exif:
                guard spec.keepMetadata, var editor = exif else { continue }
                do {
                    if spec.stripGPS { try editor.removeGPS() }
                    if upright {
                        try editor.setOrientationUpright()
                        try editor.removeThumbnailLink()
                    }
                    if let size { try editor.setPixelSize(width: size.width, height: size.height) }
                    let signature = data[segment.body].prefix(JPEGSegments.exifSignatureLength)
                    out.bytes += JPEGSegments.segment(segment.marker, body: Array(signature) + editor.tiff)
                    out.hasExif = true
                } catch {
                    // An EXIF that cannot be edited safely (GPS left in, a wrong orientation) is left out.
                    notes.append("EXIF left out: \(error.description)")
                }
            case .jfif, .multiPicture, .other:
                if asItIs { out.bytes += data[segment.range] }
            }
        }
        return out
    }

    // MARK: - Making

    /// The rendition from the decoded planes: resampled, turned upright, encoded, with the
    /// photo's metadata in front.
    private func render(_ planes: [PixelPlane], plan: Plan, size: (width: Int, height: Int)) throws(TurboJPEG.Failure) -> [UInt8] {
        let orientation = plan.orientation
        // Colour goes out 4:2:0, as galleries and cameras' own JPEGs have it; from quality 90 on
        // with full colour resolution (4:4:4), as libvips does. Grey stays grey.
        let fullColour = spec.quality >= 90
        let subsampling = plan.header.isGray ? Int32(TJSAMP_GRAY.rawValue) : Int32((fullColour ? TJSAMP_444 : TJSAMP_420).rawValue)
        var resized: [PixelPlane] = []
        for (index, plane) in planes.enumerated() {
            let width = index == 0 || fullColour ? size.width : (size.width + 1) / 2
            let height = index == 0 || fullColour ? size.height : (size.height + 1) / 2
            resized.append(PlaneResampler.resize(plane, width: width, height: height).oriented(orientation))
        }
        let upright = orientation.displaySize(width: size.width, height: size.height)
        let encoded = try codec.encode(
            resized, width: upright.width, height: upright.height, subsampling: subsampling, quality: spec.quality)
        guard let encodedSegments = try? JPEGSegments(encoded) else { return encoded }
        // The encoder's own JFIF header gives way to the photo's EXIF, as in a camera's file.
        let encoderHeader = encodedSegments.segments.filter { !(plan.metadata.hasExif && $0.kind == .jfif) }
            .flatMap { encoded[$0.range] }
        return [0xFF, 0xD8] + plan.metadata.bytes + encoderHeader + encoded[encodedSegments.restStart...]
    }

    /// The whole photo open at `fd`, for a copy with edited metadata.
    private static func readWhole(_ fd: Int32, path: String) throws(RenditionError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        while true {
            let count = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(bytes.count)) }
            guard count >= 0 else { throw .io(path: path, reason: "\(Errno.current("read"))") }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
        }
    }

    private static func write(_ bytes: [UInt8], to url: URL) throws(RenditionError) {
        let fd = open(url.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw RenditionError.writing(path: url.path, Errno.current("open")) }
        defer { close(fd) }
        do {
            try AtomicFile.writeAll(fd, bytes)
        } catch {
            throw .writing(path: url.path, error)
        }
        guard fsync(fd) == 0 else { throw .writing(path: url.path, Errno.current("fsync")) }
    }
}
