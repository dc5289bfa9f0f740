/// The EXIF Orientation tag (0x0112): how the stored pixels must be turned to be seen upright.
///
/// A camera held upright for a portrait stores the pixels sideways and says so here; a viewer
/// that ignores the tag shows the photo sideways. A rendition therefore turns its pixels upright
/// and says orientation 1.
public enum ExifOrientation: Int, CaseIterable, Sendable {
    case up = 1
    case upMirrored, down, downMirrored, leftMirrored, right, rightMirrored, left

    /// Where a displayed pixel comes from in the stored image: the coordinates are swapped
    /// first (a quarter turn), then mirrored.
    public struct Mapping: Equatable, Sendable {
        public var swapsAxes: Bool
        public var flipsX: Bool
        public var flipsY: Bool
    }

    /// The mapping for this orientation (EXIF 2.32, tag 0x0112; the same table as Pillow's
    /// `ImageOps.exif_transpose`).
    public var mapping: Mapping {
        switch self {
        case .up: Mapping(swapsAxes: false, flipsX: false, flipsY: false)
        case .upMirrored: Mapping(swapsAxes: false, flipsX: true, flipsY: false)
        case .down: Mapping(swapsAxes: false, flipsX: true, flipsY: true)
        case .downMirrored: Mapping(swapsAxes: false, flipsX: false, flipsY: true)
        case .leftMirrored: Mapping(swapsAxes: true, flipsX: false, flipsY: false)
        case .right: Mapping(swapsAxes: true, flipsX: false, flipsY: true)
        case .rightMirrored: Mapping(swapsAxes: true, flipsX: true, flipsY: true)
        case .left: Mapping(swapsAxes: true, flipsX: true, flipsY: false)
        }
    }

    /// The upright size of a stored `width`×`height` image.
    public func displaySize(width: Int, height: Int) -> (width: Int, height: Int) {
        mapping.swapsAxes ? (height, width) : (width, height)
    }
}
