/// Why a page's picture of a photo (the loupe's fitted picture or 100 % crop) could not be made.
public enum PictureError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not a JPEG relay can decode, or damaged: the page says so instead of showing grey.
    case undecodable(String)
    /// The photo could not be read, or the picture not written out.
    case io(String)

    public var description: String {
        switch self {
        case .undecodable(let reason): "the photo cannot be decoded: \(reason)"
        case .io(let reason): "the picture cannot be made: \(reason)"
        }
    }
}
