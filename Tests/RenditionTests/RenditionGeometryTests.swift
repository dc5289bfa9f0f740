import Rendition
import Testing

@Suite struct RenditionGeometryTests {
    @Test func landscapeLongEdgeBecomesMaxEdge() throws {
        let size = try #require(RenditionGeometry.target(width: 8192, height: 5464, maxEdge: 2048))
        #expect(size.width == 2048 && size.height == 1366)  // 5464 × 2048 / 8192 = 1366
    }

    @Test func portraitLongEdgeIsTheHeight() throws {
        let size = try #require(RenditionGeometry.target(width: 4000, height: 6000, maxEdge: 2048))
        #expect(size.width == 1365 && size.height == 2048)  // 4000 × 2048 / 6000 = 1365.33
    }

    @Test func shortEdgeRoundsToNearest() throws {
        // 3000 × 1000 / 4000 = 750 exactly; 2999 × 1000 / 4000 = 749.75 → 750; 2998 → 749.5 → 750 (away from zero)
        #expect(try #require(RenditionGeometry.target(width: 4000, height: 2999, maxEdge: 1000)).height == 750)
        #expect(try #require(RenditionGeometry.target(width: 4000, height: 2997, maxEdge: 1000)).height == 749)
    }

    @Test func neverEnlarges() {
        #expect(RenditionGeometry.target(width: 2048, height: 1366, maxEdge: 2048) == nil)
        #expect(RenditionGeometry.target(width: 1000, height: 1800, maxEdge: 2048) == nil)
        #expect(RenditionGeometry.target(width: 0, height: 0, maxEdge: 2048) == nil)
    }

    @Test func extremePanoramaKeepsOnePixel() throws {
        let size = try #require(RenditionGeometry.target(width: 100_000, height: 10, maxEdge: 2048))
        #expect(size.width == 2048 && size.height == 1)
    }

    static let eighths = (1...16).map { RenditionGeometry.Scale($0, 8) }

    @Test func decodeScaleIsTheSmallestAtOrAboveTheTarget() {
        // 8192 / 4 = 2048: a 45-megapixel photo decodes straight to the rendition's width.
        let quarter = RenditionGeometry.decodeScale(width: 8192, height: 5464, target: (2048, 1366), scales: Self.eighths)
        #expect(quarter == RenditionGeometry.Scale(2, 8))
        // 6000 × 3/8 = 2250 ≥ 2048, 2/8 = 1500 is too small.
        let threeEighths = RenditionGeometry.decodeScale(width: 6000, height: 4000, target: (2048, 1365), scales: Self.eighths)
        #expect(threeEighths == RenditionGeometry.Scale(3, 8))
        // With only 1/2, 1/4, 1/8 (plain libjpeg), 6000 → 3000.
        let halves = [RenditionGeometry.Scale(1, 2), RenditionGeometry.Scale(1, 4), RenditionGeometry.Scale(1, 8)]
        #expect(
            RenditionGeometry.decodeScale(width: 6000, height: 4000, target: (2048, 1365), scales: halves) == RenditionGeometry.Scale(1, 2))
        // A photo just above the target is decoded whole.
        #expect(
            RenditionGeometry.decodeScale(width: 2100, height: 1400, target: (2048, 1365), scales: Self.eighths)
                == RenditionGeometry.Scale(8, 8))
    }

    @Test func scaledDimensionsRoundUpAsTheDecoderDoes() {
        #expect(RenditionGeometry.Scale(1, 4).apply(5463) == 1366)
        #expect(RenditionGeometry.Scale(3, 8).apply(4001) == 1501)
    }
}
