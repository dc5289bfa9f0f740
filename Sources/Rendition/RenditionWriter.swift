import Foundation
import RelayCore

/// Turns the rows a ``JPEGStreamDecoder`` gives into the rendition's file as they come: each
/// plane is resized row by row, and an upright photo's strips are encoded as soon as they are
/// complete, so its file grows while the photo still downloads. A photo to be turned (EXIF
/// orientation) is encoded once its last row is in: turning needs them all.
final class RenditionWriter {
    private let encoder: JPEGStreamEncoder
    private let plan: RenditionPlan
    private let size: (width: Int, height: Int)
    private let chroma: JPEGStreamEncoder.Chroma
    private let quality: Int
    private let fd: Int32
    private var planes: [PlaneResizeStream]
    /// Rows of each decoded plane taken so far.
    private var taken: [Int]
    private var strips = 0
    private var started = false

    /// For `plan` (a resize), decoding into planes of `sourceSizes`, written to `fd`.
    init(
        plan: RenditionPlan, size: (width: Int, height: Int), sourceSizes: [(width: Int, height: Int)], quality: Int,
        encoder: JPEGStreamEncoder, fd: Int32
    ) {
        self.plan = plan
        self.size = size
        self.quality = quality
        self.encoder = encoder
        self.fd = fd
        // Colour goes out 4:2:0, as galleries and cameras' own JPEGs have it; from quality 90 on
        // with full colour resolution (4:4:4), as libvips does. Grey stays grey.
        let chroma: JPEGStreamEncoder.Chroma = plan.header.isGray ? .grey : quality >= 90 ? .full : .half
        self.chroma = chroma
        planes = sourceSizes.enumerated().map { component, source in
            let target = chroma.planeSize(component, width: size.width, height: size.height)
            return PlaneResizeStream(sourceWidth: source.width, sourceHeight: source.height, width: target.width, height: target.height)
        }
        taken = sourceSizes.map { _ in 0 }
    }

    /// Whether the file is written as the rows come (an upright photo).
    var streams: Bool { plan.orientation == .up }

    /// Takes the rows `decoder` has decoded since the last call, and encodes what they complete.
    func take(from decoder: JPEGStreamDecoder) throws(JPEGStreamEncoder.Failure) {
        for component in planes.indices {
            let rows = decoder.rows(component)
            guard rows > taken[component] else { continue }
            let width = planes[component].sourceWidth
            planes[component].append(decoder.plane(component) + taken[component] * width, count: rows - taken[component])
            taken[component] = rows
        }
        if streams { try encodeReadyStrips() }
    }

    /// Every row is in: encodes the rest (all of it, turned upright, for a photo to be turned).
    func finish() throws(JPEGStreamEncoder.Failure) {
        if streams {
            try encodeReadyStrips()
        } else {
            let upright = planes.map { $0.plane.oriented(plan.orientation) }
            try start(width: plan.outputSize.width, height: plan.outputSize.height)
            try encodeStrips(upright.map { ($0.pixels, $0.width, $0.height) }, ready: upright.map(\.height))
        }
        try encoder.finish()
    }

    /// Bytes of the rendition written so far.
    var written: Int64 { encoder.written }

    private func start(width: Int, height: Int) throws(JPEGStreamEncoder.Failure) {
        guard !started else { return }
        started = true
        try encoder.start(
            fd: fd, width: width, height: height, chroma: chroma, quality: quality, jfif: !plan.metadata.hasExif,
            segments: plan.metadata.segments.map { ($0.marker, $0.body) })
    }

    /// Encodes the strips of the upright planes whose rows are all resized.
    private func encodeReadyStrips() throws(JPEGStreamEncoder.Failure) {
        try start(width: size.width, height: size.height)
        try encodeStrips(planes.map { ($0.output, $0.width, $0.height) }, ready: planes.map(\.rows))
    }

    /// Encodes the next strips of `planes` whose rows are all among the first `ready` of each.
    private func encodeStrips(_ planes: [(pixels: [UInt8], width: Int, height: Int)], ready: [Int]) throws(JPEGStreamEncoder.Failure) {
        while true {
            let first = planes.indices.map { strips * encoder.stripRows($0) }
            guard first[0] < planes[0].height,
                planes.indices.allSatisfy({ ready[$0] >= min(first[$0] + encoder.stripRows($0), planes[$0].height) })
            else { return }
            try writeStrip(planes, first: first)
            strips += 1
        }
    }

    private func writeStrip(_ planes: [(pixels: [UInt8], width: Int, height: Int)], first: [Int]) throws(JPEGStreamEncoder.Failure) {
        var failure: JPEGStreamEncoder.Failure?
        Self.withBaseAddresses(planes.map(\.pixels)[...], []) { bases in
            let rows = zip(bases, planes.indices).map { base, component in
                base.map { $0 + min(first[component], planes[component].height - 1) * planes[component].width }
            }
            let available = planes.indices.map { max(1, planes[$0].height - first[$0]) }
            do throws(JPEGStreamEncoder.Failure) {
                try encoder.writeStrip(rows, strides: planes.map(\.width), available: available)
            } catch { failure = error }
        }
        if let failure { throw failure }
    }

    private static func withBaseAddresses(
        _ arrays: ArraySlice<[UInt8]>, _ bases: [UnsafePointer<UInt8>?], _ body: ([UnsafePointer<UInt8>?]) -> Void
    ) {
        guard let first = arrays.first else { return body(bases) }
        first.withUnsafeBufferPointer { withBaseAddresses(arrays.dropFirst(), bases + [$0.baseAddress], body) }
    }
}
