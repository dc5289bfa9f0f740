/// A file on a libgphoto2 camera: the folder of libgphoto2's camera filesystem
/// (`/store_00010001/DCIM/100CANON`) and the file's name.
public struct GPhoto2FilePath: Hashable, Sendable, CustomStringConvertible {
    public var folder: String
    public var name: String

    public init(folder: String, name: String) {
        self.folder = folder
        self.name = name
    }

    public var description: String { folder.hasSuffix("/") ? folder + name : folder + "/" + name }
}

/// What libgphoto2 knows about a file before it is downloaded.
public struct GPhoto2FileInfo: Equatable, Sendable {
    /// Bytes, when the driver reports them.
    public var size: Int64?
    /// The file's time as the camera reports it (seconds since 1970), when it does.
    public var modified: Int?
    /// The MIME type the driver reports ("image/jpeg", "image/x-canon-cr2"…).
    public var mimeType: String?
    /// Protected on the card: the driver's permissions allow no deletion (the ptp2 driver
    /// maps ProtectionStatus ReadOnly so); nil when it reports no permissions.
    public var protected: Bool?

    public init(size: Int64?, modified: Int?, mimeType: String?, protected: Bool? = nil) {
        self.size = size
        self.modified = modified
        self.mimeType = mimeType
        self.protected = protected
    }
}

/// What `gp_camera_wait_for_event` reported.
public enum GPhoto2Event: Equatable, Sendable {
    /// Nothing happened within the wait.
    case timeout
    /// A new file on the camera (a shot, or a capture held in its memory).
    case fileAdded(GPhoto2FilePath)
    /// A file's info changed on the camera (protected or rated on the body: the ptp2 driver
    /// reports ObjectInfoChanged so).
    case fileChanged(GPhoto2FilePath)
    /// The camera finished a capture (its files come as `fileAdded`).
    case captureComplete
    /// Anything else (a property changed, a folder added).
    case other
}

/// A camera libgphoto2 detects (USB, and disks that look like cameras), for `relay discover`
/// and `--camera usb`.
public struct GPhoto2DetectedCamera: Equatable, Sendable {
    public var model: String
    /// The port path: `usb:001,005`.
    public var port: String

    public init(model: String, port: String) {
        self.model = model
        self.port = port
    }
}
