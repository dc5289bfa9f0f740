import PhotoMetadata
import RelayCore

/// What to do with one photo, decided from its head (every byte before its image data) and its
/// header, before any pixel is decoded: send it as it is, copy it with edited metadata, or
/// shrink it, at which DCT scale, to which size, with which segments (pure).
struct RenditionPlan {
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
    /// The rendition's size, upright.
    var outputSize: (width: Int, height: Int)
    var notes: [String]

    /// The segments a rendition carries, edited, and whether an EXIF is among them.
    struct Metadata {
        /// Marker and body of each, in the photo's order.
        var segments: [(marker: UInt8, body: [UInt8])] = []
        var hasExif = false

        /// The segments as they are written in a file.
        var bytes: [UInt8] { segments.flatMap { JPEGSegments.segment($0.marker, body: $0.body) } }
    }

    /// The DCT scales libjpeg-turbo decodes at: N/8 for N = 1…16.
    static let scales = (1...16).map { RenditionGeometry.Scale($0, 8) }

    /// The plan for a photo whose head is `data` and header `header`, or why it goes as the
    /// original (its head is not a JPEG's). `alwaysDecodes`: a photo already within the spec's
    /// size is decoded and encoded at its own size too (a page's picture must be upright and
    /// small in bytes, never the file as it is).
    static func make(
        _ data: [UInt8], header: JPEGStreamDecoder.Header, spec: RenditionSpec, alwaysDecodes: Bool = false
    ) -> Result<RenditionPlan, Unusable> {
        let segments: JPEGSegments
        do { segments = try JPEGSegments(data) } catch {
            return .failure(Unusable(reason: error == .notJPEG ? "it is not a JPEG" : "it is not a readable JPEG: \(error.description)"))
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
        let carried = { (upright: Bool, size: (width: Int, height: Int)?, asItIs: Bool) in
            carriedMetadata(data, segments, exif: exif, spec: spec, upright: upright, size: size, asItIs: asItIs, notes: &notes)
        }
        // A turned photo whose EXIF is left out would show on its side as a copy: it is made
        // upright at its own size instead.
        let turnedWithoutExif = orientation != .up && !spec.keepMetadata
        guard
            let target = RenditionGeometry.target(width: header.width, height: header.height, maxEdge: spec.maxEdge)
                ?? (turnedWithoutExif || alwaysDecodes ? (header.width, header.height) : nil)
        else {
            let small = "it is already \(header.width)×\(header.height), within \(spec.maxEdge) px"
            let mustEdit = (spec.stripGPS && (exif?.hasGPS ?? false)) || (!spec.keepMetadata && hasRemovableMetadata(segments))
            // Sent as it is, pixels untouched, but without what the config removes.
            let metadata = mustEdit ? carried(false, nil, true) : Metadata()
            return .success(
                RenditionPlan(
                    header: header, segments: segments, orientation: orientation, work: mustEdit ? .copyWithMetadata : .sendOriginal(small),
                    metadata: metadata, outputSize: (header.width, header.height), notes: notes))
        }
        let scale = RenditionGeometry.decodeScale(width: header.width, height: header.height, target: target, scales: scales)
        let upright = orientation.displaySize(width: target.width, height: target.height)
        let metadata = carried(orientation != .up, upright, false)
        return .success(
            RenditionPlan(
                header: header, segments: segments, orientation: orientation, work: .resize(to: target, scale: scale),
                metadata: metadata, outputSize: upright, notes: notes))
    }

    /// Why a photo goes as the original before any decoding.
    struct Unusable: Error {
        var reason: String
    }

    private static func hasRemovableMetadata(_ segments: JPEGSegments) -> Bool {
        segments.segments.contains { [.exif, .xmp, .extendedXMP, .iptc].contains($0.kind) }
    }

    /// The segments the rendition carries: EXIF (edited), XMP and IPTC when metadata is kept,
    /// and the ICC profile always. Re-encoded, it leaves out the rest: a camera's multi-picture
    /// index (MPF) and other vendors' segments describe the original file. Copied as it is
    /// (`asItIs`), it keeps everything the config does not remove.
    private static func carriedMetadata(
        _ data: [UInt8], _ segments: JPEGSegments, exif: ExifEditor?, spec: RenditionSpec, upright: Bool,
        size: (width: Int, height: Int)?, asItIs: Bool, notes: inout [String]
    ) -> Metadata {
        var out = Metadata()
        for segment in segments.segments {
            let asFound = (marker: segment.marker, body: Array(data[segment.body]))
            switch segment.kind {
            case .icc:
                out.segments.append(asFound)
            case .xmp, .extendedXMP, .iptc:
                if spec.keepMetadata { out.segments.append(asFound) }
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
                    out.segments.append((segment.marker, Array(signature) + editor.tiff))
                    out.hasExif = true
                } catch {
                    // An EXIF that cannot be edited safely (GPS left in, a wrong orientation) is left out.
                    notes.append("EXIF left out: \(error.description)")
                }
            case .jfif, .multiPicture, .other:
                if asItIs { out.segments.append(asFound) }
            }
        }
        return out
    }
}
