import CTurboJPEG
import Foundation
import RelayCore

/// Makes the gallery copy of one photo: decoded at the DCT scale nearest above the target,
/// resampled to the exact size, turned upright, encoded, with the photo's metadata carried over.
///
/// One maker per thread (it owns TurboJPEG handles). Only the scaled image is ever decoded:
/// a 45-megapixel photo made 2048 px wide is decoded at 1/4 (about 8 MB), never at full size.
public final class RenditionMaker {
    public let spec: RenditionSpec
    private let codec: TurboJPEG

    public init(spec: RenditionSpec) throws(RenditionError) {
        self.spec = spec
        do { codec = try TurboJPEG() } catch { throw .codec(error.description) }
    }

    /// What became of a photo.
    public enum Outcome: Equatable, Sendable {
        /// A rendition was written: its size in bytes and pixels, and what was noticed on the way
        /// (metadata that could not be kept).
        case made(bytes: Int64, width: Int, height: Int, notes: [String])
        /// The original is sent instead, for this reason (already small, not a JPEG, damaged).
        case original(reason: String)
    }

    /// Makes the rendition of the photo at `source` into `destination` (created, written in
    /// full and fsynced). Damage in the photo is an `.original` outcome, never an error: the
    /// photo still goes. Only writing the rendition can fail.
    public func make(source: URL, destination: URL) throws(RenditionError) -> Outcome {
        let data: Data
        do { data = try Data(contentsOf: source, options: .alwaysMapped) } catch {
            throw .io(path: source.path, reason: "\(error.localizedDescription)")
        }
        let plan: Plan
        switch prepare(data) {
        case .success(let prepared): plan = prepared
        case .failure(let reason): return .original(reason: reason)
        }
        let output: [UInt8]
        switch plan.work {
        case .sendOriginal(let reason):
            return .original(reason: reason)
        case .copyWithMetadata:
            output = Array(data.prefix(2)) + plan.metadata.bytes + Array(data[plan.segments.restStart...])
        case .resize(let size, let scale):
            do {
                output = try data.withUnsafeBytes { jpeg throws(TurboJPEG.Failure) in
                    try render(jpeg, header: plan.header, scale: scale, size: size, orientation: plan.orientation, metadata: plan.metadata)
                }
            } catch {
                return .original(reason: "the photo could not be decoded (\(error))")
            }
        }
        try Self.write(output, to: destination)
        let (width, height) = plan.outputSize
        return .made(bytes: Int64(output.count), width: width, height: height, notes: plan.notes)
    }

    // MARK: - Deciding

    private struct Plan {
        enum Work {
            case sendOriginal(String)
            case copyWithMetadata
            case resize(to: (width: Int, height: Int), scale: RenditionGeometry.Scale)
        }
        var header: TurboJPEG.Header
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

    private func prepare(_ data: Data) -> Prepared {
        let segments: JPEGSegments
        do { segments = try JPEGSegments(data) } catch {
            return .failure(error == .notJPEG ? "it is not a JPEG" : "it is not a readable JPEG: \(error.description)")
        }
        let header: TurboJPEG.Header
        do {
            header = try data.withUnsafeBytes { jpeg throws(TurboJPEG.Failure) in try codec.header(jpeg) }
        } catch {
            return .failure("it is not a readable JPEG (\(error))")
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
        _ data: Data, _ segments: JPEGSegments, exif: ExifEditor?, upright: Bool, size: (width: Int, height: Int)?,
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

    private func render(
        _ jpeg: UnsafeRawBufferPointer, header: TurboJPEG.Header, scale: RenditionGeometry.Scale,
        size: (width: Int, height: Int), orientation: ExifOrientation, metadata: Metadata
    ) throws(TurboJPEG.Failure) -> [UInt8] {
        let planes = try codec.decodePlanes(jpeg, header: header, scale: scale)
        // Colour goes out 4:2:0, as galleries and cameras' own JPEGs have it; from quality 90 on
        // with full colour resolution (4:4:4), as libvips does. Grey stays grey.
        let fullColour = spec.quality >= 90
        let subsampling = header.isGray ? Int32(TJSAMP_GRAY.rawValue) : Int32((fullColour ? TJSAMP_444 : TJSAMP_420).rawValue)
        var resized: [PixelPlane] = []
        for (index, plane) in planes.enumerated() {
            let width = index == 0 || fullColour ? size.width : (size.width + 1) / 2
            let height = index == 0 || fullColour ? size.height : (size.height + 1) / 2
            resized.append(PlaneResampler.resize(plane, width: width, height: height).oriented(orientation))
        }
        let upright = orientation.displaySize(width: size.width, height: size.height)
        let encoded = try codec.encode(
            resized, width: upright.width, height: upright.height, subsampling: subsampling,
            quality: spec.quality)
        guard let encodedSegments = try? JPEGSegments(encoded) else { return encoded }
        // The encoder's own JFIF header gives way to the photo's EXIF, as in a camera's file.
        let encoderHeader = encodedSegments.segments.filter { !(metadata.hasExif && $0.kind == .jfif) }
            .flatMap { encoded[$0.range] }
        return [0xFF, 0xD8] + metadata.bytes + encoderHeader + encoded[encodedSegments.restStart...]
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
