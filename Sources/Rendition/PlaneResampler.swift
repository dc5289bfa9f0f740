/// Shrinks a plane to an exact size with a separable Catmull-Rom (bicubic, a = −0.5) filter
/// widened by the reduction ratio, so every source pixel counts (no aliasing) and edges stay
/// sharp. After the JPEG decoder's DCT-domain scaling the remaining ratio is small (between
/// 1/2 and 1), where this filter matches Lanczos closely at a third of its taps.
public enum PlaneResampler {
    /// Weights in fixed point: 14 fractional bits keep 8-bit samples exact and sums in Int32.
    static let precision: Int32 = 14

    /// For one axis: each output sample's first source index and its weights, `stride` apart,
    /// of which the first `taps` are used (fewer than `stride` when the source is that small).
    struct Contributions: Equatable {
        var starts: [Int]
        var weights: [Int32]
        var stride: Int
        var taps: Int
    }

    static func kernel(_ x: Double) -> Double {
        let a = -0.5
        let t = abs(x)
        if t < 1 { return ((a + 2) * t - (a + 3)) * t * t + 1 }
        if t < 2 { return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a }
        return 0
    }

    /// The weights that take `source` samples to `target` (target ≤ source), edges replicated.
    static func contributions(source: Int, target: Int) -> Contributions {
        let scale = Double(source) / Double(target)
        let support = 2 * max(1, scale)
        let taps = Int((2 * support).rounded(.up)) + 1
        var starts = [Int](repeating: 0, count: target)
        var weights = [Int32](repeating: 0, count: target * taps)
        let one = Int32(1) << precision
        for i in 0..<target {
            let center = (Double(i) + 0.5) * scale - 0.5
            let first = Int((center - support).rounded(.down)) + 1
            var raw = [Double](repeating: 0, count: taps)
            // Weights of taps that fall outside the image go to the nearest edge sample.
            let lowest = max(0, min(first, source - taps))
            for t in 0..<taps {
                let j = first + t
                let w = kernel((Double(j) - center) / max(1, scale))
                let clamped = min(max(j, 0), source - 1)
                let slot = min(max(clamped - lowest, 0), taps - 1)
                raw[slot] += w
            }
            let total = raw.reduce(0, +)
            var fixed = raw.map { Int32(($0 / total * Double(one)).rounded()) }
            // Rounding must not brighten or darken: the weights sum to exactly one.
            if let largest = fixed.indices.max(by: { fixed[$0] < fixed[$1] }) {
                fixed[largest] += one - fixed.reduce(0, +)
            }
            starts[i] = lowest
            for t in 0..<taps { weights[i * taps + t] = fixed[t] }
        }
        return Contributions(starts: starts, weights: weights, stride: taps, taps: min(taps, source))
    }

    /// `plane` resized to `width`×`height`: shrunk, or (a subsampled chroma plane) widened.
    public static func resize(_ plane: PixelPlane, width: Int, height: Int) -> PixelPlane {
        precondition(width >= 1 && height >= 1, "a plane has at least one pixel")
        var current = plane
        if width != plane.width { current = horizontal(current, to: width) }
        if height != plane.height { current = vertical(current, to: height) }
        return current
    }

    private static func clampToByte(_ value: Int32) -> UInt8 {
        let rounded = (value + (1 << (precision - 1))) >> precision
        return UInt8(clamping: rounded)
    }

    /// One row shrunk (or widened) along x: `source` holds the row's samples, `target` gets
    /// `c.starts.count` of them.
    static func resizeRow(_ source: UnsafePointer<UInt8>, into target: UnsafeMutablePointer<UInt8>, _ c: Contributions) {
        c.weights.withUnsafeBufferPointer { weights in
            for x in 0..<c.starts.count {
                let base = c.starts[x]
                let w = x * c.stride
                var sum: Int32 = 0
                for t in 0..<c.taps { sum &+= weights[w + t] &* Int32(source[base + t]) }
                target[x] = clampToByte(sum)
            }
        }
    }

    /// Output row `y` along y, from the rows of `plane` (`width` samples each) under its filter;
    /// `sums` holds `width` accumulators.
    static func blendRow(
        _ y: Int, of plane: UnsafePointer<UInt8>, width: Int, into target: UnsafeMutablePointer<UInt8>,
        _ c: Contributions, sums: UnsafeMutablePointer<Int32>
    ) {
        for x in 0..<width { sums[x] = 0 }
        for t in 0..<c.taps {
            let weight = c.weights[y * c.stride + t]
            if weight == 0 { continue }
            let row = plane + (c.starts[y] + t) * width
            for x in 0..<width { sums[x] &+= weight &* Int32(row[x]) }
        }
        for x in 0..<width { target[x] = clampToByte(sums[x]) }
    }

    private static func horizontal(_ plane: PixelPlane, to width: Int) -> PixelPlane {
        let c = contributions(source: plane.width, target: width)
        var out = [UInt8](repeating: 0, count: width * plane.height)
        plane.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<plane.height {
                    resizeRow(src.baseAddress! + y * plane.width, into: dst.baseAddress! + y * width, c)
                }
            }
        }
        return PixelPlane(width: width, height: plane.height, pixels: out)
    }

    private static func vertical(_ plane: PixelPlane, to height: Int) -> PixelPlane {
        let c = contributions(source: plane.height, target: height)
        let width = plane.width
        var out = [UInt8](repeating: 0, count: width * height)
        var sums = [Int32](repeating: 0, count: width)
        plane.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                sums.withUnsafeMutableBufferPointer { acc in
                    for y in 0..<height {
                        blendRow(y, of: src.baseAddress!, width: width, into: dst.baseAddress! + y * width, c, sums: acc.baseAddress!)
                    }
                }
            }
        }
        return PixelPlane(width: width, height: height, pixels: out)
    }
}

/// One plane resized as its source rows arrive (a photo still downloading): each output row is
/// made once the source rows under its filter are in, with ``PlaneResampler``'s arithmetic, so
/// the result is the same bytes as resizing the finished plane.
struct PlaneResizeStream {
    let sourceWidth: Int
    let sourceHeight: Int
    let width: Int
    let height: Int
    private let horizontal: PlaneResampler.Contributions?
    private let vertical: PlaneResampler.Contributions?
    /// Source rows resized along x (only when the height changes too).
    private var intermediate: [UInt8]
    private var sums: [Int32]
    /// The resized plane; its first ``rows`` rows are done.
    private(set) var output: [UInt8]
    private(set) var rows = 0
    private(set) var sourceRows = 0

    init(sourceWidth: Int, sourceHeight: Int, width: Int, height: Int) {
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.width = width
        self.height = height
        horizontal = width == sourceWidth ? nil : PlaneResampler.contributions(source: sourceWidth, target: width)
        vertical = height == sourceHeight ? nil : PlaneResampler.contributions(source: sourceHeight, target: height)
        intermediate = vertical == nil ? [] : [UInt8](repeating: 0, count: width * sourceHeight)
        sums = [Int32](repeating: 0, count: vertical == nil ? 0 : width)
        output = [UInt8](repeating: 0, count: width * height)
    }

    /// Takes the next `count` source rows (`sourceWidth` samples each, packed) and makes every
    /// output row they complete.
    mutating func append(_ source: UnsafePointer<UInt8>, count: Int) {
        let count = min(count, sourceHeight - sourceRows)
        guard count > 0 else { return }
        let horizontal = horizontal
        let (sourceWidth, width, first) = (sourceWidth, width, sourceRows)
        func place(into target: UnsafeMutablePointer<UInt8>) {
            for row in 0..<count {
                let from = source + row * sourceWidth
                let to = target + (first + row) * width
                if let horizontal { PlaneResampler.resizeRow(from, into: to, horizontal) } else { to.update(from: from, count: width) }
            }
        }
        sourceRows += count
        guard let vertical else {
            output.withUnsafeMutableBufferPointer { place(into: $0.baseAddress!) }
            rows = sourceRows
            return
        }
        intermediate.withUnsafeMutableBufferPointer { place(into: $0.baseAddress!) }
        var ready = rows
        while ready < height && vertical.starts[ready] + vertical.taps <= sourceRows { ready += 1 }
        guard ready > rows else { return }
        let done = rows
        intermediate.withUnsafeBufferPointer { plane in
            output.withUnsafeMutableBufferPointer { out in
                sums.withUnsafeMutableBufferPointer { acc in
                    for y in done..<ready {
                        PlaneResampler.blendRow(
                            y, of: plane.baseAddress!, width: width, into: out.baseAddress! + y * width, vertical, sums: acc.baseAddress!)
                    }
                }
            }
        }
        rows = ready
    }

    /// The finished plane (every source row taken).
    var plane: PixelPlane { PixelPlane(width: width, height: height, pixels: output) }
}
