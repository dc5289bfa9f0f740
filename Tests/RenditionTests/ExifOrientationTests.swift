import Rendition
import Testing

/// Every EXIF orientation turns its stored pixels upright. The stored image is built here from
/// the EXIF 2.32 definition of tag 0x0112 (which visual side the stored 0th row and 0th column
/// are), independently of the mapping under test.
@Suite struct ExifOrientationTests {
    /// (0th row's side, 0th column's side) for orientations 1…8.
    static let definition: [Int: (row0: Side, column0: Side)] = [
        1: (.top, .left), 2: (.top, .right), 3: (.bottom, .right), 4: (.bottom, .left),
        5: (.left, .top), 6: (.right, .top), 7: (.right, .bottom), 8: (.left, .bottom),
    ]

    enum Side { case top, bottom, left, right }

    /// A 3×2 upright picture with every pixel distinct.
    static let upright = PixelPlane(width: 3, height: 2, pixels: [10, 20, 30, 40, 50, 60])

    /// The pixels a camera stores for `upright` under `orientation`.
    static func stored(_ orientation: Int) -> PixelPlane {
        let (row0, column0) = definition[orientation]!
        let rowsAreColumns = row0 == .left || row0 == .right
        let width = rowsAreColumns ? upright.height : upright.width
        let height = rowsAreColumns ? upright.width : upright.height
        var plane = PixelPlane(width: width, height: height)
        for r in 0..<height {
            for c in 0..<width {
                // Stored row r runs from the row0 side inwards, column c from the column0 side.
                let x: Int
                let y: Int
                switch (row0, column0) {
                case (.top, .left): (x, y) = (c, r)
                case (.top, .right): (x, y) = (upright.width - 1 - c, r)
                case (.bottom, .right): (x, y) = (upright.width - 1 - c, upright.height - 1 - r)
                case (.bottom, .left): (x, y) = (c, upright.height - 1 - r)
                case (.left, .top): (x, y) = (r, c)
                case (.right, .top): (x, y) = (upright.width - 1 - r, c)
                case (.right, .bottom): (x, y) = (upright.width - 1 - r, upright.height - 1 - c)
                case (.left, .bottom): (x, y) = (r, upright.height - 1 - c)
                default: fatalError("not an EXIF orientation")
                }
                plane[c, r] = upright[x, y]
            }
        }
        return plane
    }

    @Test(arguments: 1...8)
    func storedPixelsComeOutUpright(value: Int) throws {
        let orientation = try #require(ExifOrientation(rawValue: value))
        let stored = Self.stored(value)
        #expect(stored.oriented(orientation) == Self.upright, "orientation \(value)")
        let size = orientation.displaySize(width: stored.width, height: stored.height)
        #expect(size.width == 3 && size.height == 2)
    }

    @Test func orientationSixIsAQuarterTurnClockwise() {
        // A camera turned for a portrait, grip up: the stored top-left pixel shows top-right.
        let stored = PixelPlane(width: 2, height: 1, pixels: [1, 2])
        let shown = stored.oriented(.right)
        #expect(shown.width == 1 && shown.height == 2)
        #expect(shown.pixels == [1, 2])
        let left = stored.oriented(.left)
        #expect(left.pixels == [2, 1])
    }
}
