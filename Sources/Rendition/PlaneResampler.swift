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

    private static func horizontal(_ plane: PixelPlane, to width: Int) -> PixelPlane {
        let c = contributions(source: plane.width, target: width)
        let stride = c.stride
        var out = [UInt8](repeating: 0, count: width * plane.height)
        plane.pixels.withUnsafeBufferPointer { src in
            c.weights.withUnsafeBufferPointer { weights in
                out.withUnsafeMutableBufferPointer { dst in
                    for y in 0..<plane.height {
                        let row = y * plane.width
                        let outRow = y * width
                        for x in 0..<width {
                            let base = row + c.starts[x]
                            let w = x * stride
                            var sum: Int32 = 0
                            for t in 0..<c.taps { sum &+= weights[w + t] &* Int32(src[base + t]) }
                            dst[outRow + x] = clampToByte(sum)
                        }
                    }
                }
            }
        }
        return PixelPlane(width: width, height: plane.height, pixels: out)
    }

    private static func vertical(_ plane: PixelPlane, to height: Int) -> PixelPlane {
        let c = contributions(source: plane.height, target: height)
        let stride = c.stride
        let width = plane.width
        var out = [UInt8](repeating: 0, count: width * height)
        var sums = [Int32](repeating: 0, count: width)
        plane.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                sums.withUnsafeMutableBufferPointer { acc in
                    for y in 0..<height {
                        for x in 0..<width { acc[x] = 0 }
                        for t in 0..<c.taps {
                            let weight = c.weights[y * stride + t]
                            if weight == 0 { continue }
                            let row = (c.starts[y] + t) * width
                            for x in 0..<width { acc[x] &+= weight &* Int32(src[row + x]) }
                        }
                        let outRow = y * width
                        for x in 0..<width { dst[outRow + x] = clampToByte(acc[x]) }
                    }
                }
            }
        }
        return PixelPlane(width: width, height: height, pixels: out)
    }
}
