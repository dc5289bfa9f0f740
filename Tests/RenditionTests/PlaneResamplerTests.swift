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

    /// Rows arriving in pieces (a photo still downloading) give the bytes of resizing the whole
    /// plane, each output row made as soon as the rows under its filter are in.
    @Test(arguments: [(251, 167, 240, 160), (300, 200, 300, 120), (300, 200, 150, 200), (64, 48, 64, 48), (9, 400, 5, 399)])
    func rowsInPiecesResizeAsTheWholePlane(_ size: (Int, Int, Int, Int)) {
        let (sourceWidth, sourceHeight, width, height) = size
        var random = SystemRandomNumberGenerator()
        let plane = PixelPlane(
            width: sourceWidth, height: sourceHeight,
            pixels: (0..<(sourceWidth * sourceHeight)).map { _ in UInt8.random(in: 0...255, using: &random) })
        let whole = PlaneResampler.resize(plane, width: width, height: height)
        var stream = PlaneResizeStream(sourceWidth: sourceWidth, sourceHeight: sourceHeight, width: width, height: height)
        var row = 0
        var madeBefore = 0
        while row < sourceHeight {
            let count = min(Int.random(in: 1...17, using: &random), sourceHeight - row)
            plane.pixels.withUnsafeBufferPointer { stream.append($0.baseAddress! + row * sourceWidth, count: count) }
            row += count
            #expect(stream.rows >= madeBefore)
            // What is out already is final.
            #expect(Array(stream.output[0..<(stream.rows * width)]) == Array(whole.pixels[0..<(stream.rows * width)]))
            madeBefore = stream.rows
        }
        #expect(stream.rows == height)
        #expect(stream.plane == whole)
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
