/// The sizes a rendition goes through (pure arithmetic, tested without images).
public enum RenditionGeometry {
    /// The rendition's size for a `width`×`height` photo: the long edge becomes `maxEdge`, the
    /// short edge keeps the aspect ratio (rounded, at least 1). Nil when the photo's long edge is
    /// already at most `maxEdge`: a rendition never enlarges, the photo goes as it is.
    public static func target(width: Int, height: Int, maxEdge: Int) -> (width: Int, height: Int)? {
        guard width > 0, height > 0, maxEdge > 0, max(width, height) > maxEdge else { return nil }
        let shortSide = { (short: Int, long: Int) in
            max(1, Int((Double(short) * Double(maxEdge) / Double(long)).rounded()))
        }
        return width >= height ? (maxEdge, shortSide(height, width)) : (shortSide(width, height), maxEdge)
    }

    /// A DCT-domain scale the JPEG decoder offers (libjpeg-turbo: N/8 for N = 1…16).
    public struct Scale: Equatable, Sendable {
        public var numerator: Int
        public var denominator: Int

        public init(_ numerator: Int, _ denominator: Int) {
            self.numerator = numerator
            self.denominator = denominator
        }

        /// A dimension scaled as the decoder scales it (libjpeg's `jdiv_round_up`, TJSCALED).
        public func apply(_ dimension: Int) -> Int {
            (dimension * numerator + denominator - 1) / denominator
        }
    }

    /// The smallest of `scales` that still decodes at least `target` in both dimensions, so
    /// the decoder does most of the shrinking (it skips the DCT coefficients that would be
    /// thrown away) and the resampler only the last step. Falls back to full size.
    public static func decodeScale(
        width: Int, height: Int, target: (width: Int, height: Int), scales: [Scale]
    ) -> Scale {
        scales
            .filter { $0.numerator <= $0.denominator }
            .filter { $0.apply(width) >= target.width && $0.apply(height) >= target.height }
            .min { $0.apply(width) * $0.apply(height) < $1.apply(width) * $1.apply(height) }
            ?? Scale(1, 1)
    }
}
