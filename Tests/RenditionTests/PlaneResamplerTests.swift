import Testing

@testable import Rendition

@Suite struct PlaneResamplerTests {
    @Test func weightsSumToOneEverywhere() {
        for (source, target) in [(2250, 2048), (3000, 2048), (17, 5), (5, 17), (4, 1)] {
            let c = PlaneResampler.contributions(source: source, target: target)
            for i in 0..<target {
                let sum = c.weights[(i * c.stride)..<(i * c.stride + c.stride)].reduce(0, +)
                #expect(sum == 1 << PlaneResampler.precision, "\(source)→\(target) at \(i)")
                #expect(c.starts[i] >= 0 && c.starts[i] + c.taps <= source)
            }
        }
    }

    @Test func flatStaysFlat() {
        let plane = PixelPlane(width: 37, height: 23, fill: 200)
        let small = PlaneResampler.resize(plane, width: 10, height: 7)
        #expect(small.width == 10 && small.height == 7)
        #expect(small.pixels.allSatisfy { $0 == 200 })
    }

    @Test func halvingAveragesNeighbours() {
        // Columns alternate 0 and 255: shrunk by two, every pixel is mid-grey (no aliasing to 0 or 255).
        var plane = PixelPlane(width: 64, height: 4)
        for y in 0..<4 { for x in 0..<64 where x % 2 == 1 { plane[x, y] = 255 } }
        let half = PlaneResampler.resize(plane, width: 32, height: 4)
        #expect(half.pixels[2..<30].allSatisfy { (120...135).contains($0) }, "\(half.pixels)")
    }

    @Test func gradientKeepsItsOrder() {
        var plane = PixelPlane(width: 100, height: 1)
        for x in 0..<100 { plane[x, 0] = UInt8(x * 2) }
        let small = PlaneResampler.resize(plane, width: 40, height: 1)
        #expect(zip(small.pixels, small.pixels.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(small.pixels.first! < 10 && small.pixels.last! > 185)
    }
}
