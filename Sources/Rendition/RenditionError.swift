import RelayCore

/// A rendition that could not be stored (the photo itself is fine and is still sent).
public enum RenditionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// libjpeg-turbo could not start.
    case codec(String)
    /// The photo could not be read.
    case io(path: String, reason: String)
    /// The rendition could not be written.
    case writing(path: String, Errno)

    /// The disk is full: the rendition is tried again once there is room.
    public var isDiskFull: Bool {
        if case .writing(_, let errno) = self { return errno.isDiskFull }
        return false
    }

    public var description: String {
        switch self {
        case .codec(let reason): "renditions cannot be made: \(reason); check that libjpeg-turbo (libjpeg62-turbo) is installed"
        case .io(let path, let reason): "cannot read \(path) to make its rendition: \(reason)"
        case .writing(let path, let errno):
            errno.isDiskFull
                ? "no room on the disk for the rendition \(path): free some space" : "cannot write the rendition \(path): \(errno)"
        }
    }
}
