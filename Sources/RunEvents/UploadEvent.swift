import Foundation

/// A photo on its way to one destination (named by its config's label).
public enum UploadEvent: Sendable, Equatable {
    /// A worker began an attempt (`duringDownload`: the photo is still coming off the camera).
    case started(PhotoRef, destination: String, attempt: Int, duringDownload: Bool)
    /// Bytes sent so far in the attempt in progress (at most a few times a second).
    case progressed(PhotoRef, destination: String, sent: Int64, total: Int64)
    /// The attempt ended.
    case settled(PhotoRef, destination: String, outcome: UploadOutcome)
    /// A gallery-sized copy was made for the photo.
    case renditionMade(PhotoRef, RenditionResult)
    /// The photo goes as the original although the config asks for a rendition.
    case sentAsOriginal(PhotoRef, reason: String)
    /// Anything else about one photo's delivery (a cut-through upload given up and sent from the
    /// spool, a state file that could not be written).
    case notice(PhotoRef, String, Severity)
}

/// How one attempt ended.
public enum UploadOutcome: Sendable, Equatable {
    /// The destination has it.
    case delivered(Delivery)
    /// It failed and is tried again in `retryIn` seconds.
    case retrying(attempt: Int, reason: String, retryIn: Double)
    /// It was cut short because relay is stopping; it stays in the spool for the next run.
    case interrupted
    /// Refused for good; it waits in `spool/failed` for `relay retry`.
    case failed(reason: String, keptIn: String?)
}

/// A delivered photo's figures.
public struct Delivery: Sendable, Equatable {
    /// What the destination answered ("HTTP 201", "delivered").
    public var answer: String
    /// Bytes sent in the attempt (a rendition's, when one was sent).
    public var bytesSent: Int64
    /// The attempt's duration.
    public var seconds: Double
    /// From the shutter (or the file's time) to the destination's answer.
    public var shutterToGallery: Double
    /// Sent while the photo was still downloading (cut-through).
    public var duringDownload: Bool

    public init(answer: String, bytesSent: Int64, seconds: Double, shutterToGallery: Double, duringDownload: Bool) {
        self.answer = answer
        self.bytesSent = bytesSent
        self.seconds = seconds
        self.shutterToGallery = shutterToGallery
        self.duringDownload = duringDownload
    }
}

/// A rendition made for a photo.
public struct RenditionResult: Sendable, Equatable {
    public var bytes: Int64
    public var width: Int
    public var height: Int
    /// How long the photo waited for it once spooled: for one decoded while the photo
    /// downloaded, only the last rows, the resampling and the encoding.
    public var milliseconds: Int
    /// What was dropped or changed on the way (e.g. an unreadable EXIF block).
    public var notes: [String]
    /// Whether the photo was decoded as it downloaded.
    public var duringDownload: Bool

    public init(bytes: Int64, width: Int, height: Int, milliseconds: Int, notes: [String] = [], duringDownload: Bool = false) {
        self.bytes = bytes
        self.width = width
        self.height = height
        self.milliseconds = milliseconds
        self.notes = notes
        self.duringDownload = duringDownload
    }
}
