import Foundation

/// What a photo source reports: a camera's connection, battery and card, and the photos it
/// takes or leaves.
public enum SourceEvent: Sendable, Equatable {
    /// The source is looking for its camera or connecting to it (`detail` says where).
    case connecting(String)
    /// A camera's session is open.
    case connected(CameraDescription)
    /// The camera went away (or could not be reached), for a reason not reported just before;
    /// relay tries again in `retryIn` seconds (and reports `connecting` at each try).
    /// `reason` is the whole explanation, `summary` a few words of it for a progress line.
    case lost(reason: String, summary: String, retryIn: Double, attempt: Int)
    /// The camera's battery level, in percent, when it changes.
    case battery(percent: Int)
    /// The camera's free card space, when it changes: bytes, and shots when the camera says.
    case card(CardSpace)
    /// Derived once per camera when its battery falls to 20 % (see `LowResourceWatch`).
    case batteryLow(percent: Int)
    /// Derived once per camera when fewer than 100 shots fit on its card.
    case cardLow(shots: Int)
    /// A new photo is on its way in (the camera announced it, a file appeared, an upload began).
    case announced(fileName: String, bytes: Int64?)
    /// A new photo is safely in the spool.
    case spooled(SpooledPhoto)
    /// A file that is not taken (RAW, video, sidecar...) was left alone.
    case skipped(fileName: String, reason: String)
    /// A photo that was not taken because the source's seen log says it was taken before: said
    /// every time, with what matched, so that a wrong match shows the first time it happens.
    case alreadyTaken(AlreadyTaken)
    /// The spool is full; the source waits (`waiting` photos are still on the camera, if known).
    case spoolFull(waiting: Int?)
    /// Something the photographer may want to know that has no type of its own (a download
    /// resumed, a different camera answered, photos already on the card).
    case notice(String, Severity)
    /// The source cannot be used at all (a camera relay does not support) and has stopped; the
    /// run ends with this message.
    case unusable(String)
}

/// A connected camera.
public struct CameraDescription: Sendable, Equatable {
    /// The model ("Canon EOS R50").
    public var model: String
    /// How the log names it (model and serial).
    public var name: String
    public var serial: String?
    /// Where it was reached (`192.168.1.20:15740`, `usb:001,004`).
    public var address: String
    /// How relay talks to it ("Canon EOS events", "libgphoto2").
    public var via: String

    public init(model: String, name: String, serial: String?, address: String, via: String) {
        self.model = model
        self.name = name
        self.serial = serial
        self.address = address
        self.via = via
    }
}

/// A photo a source declined as taken before.
public struct AlreadyTaken: Sendable, Equatable {
    /// Its name on the camera (or in the folder, or as uploaded over FTP).
    public var fileName: String
    /// What matched the seen log's record: the photo as relay knows it ("DSC_0042.JPG,
    /// 24.3 MB, shot 20261127T101503"; "body serial 3012345, shot 2026:11:27 10:15:03.12").
    public var matched: String
    /// Found by looking through what was there when the source started (a card's listing, a
    /// folder's first scan), where photos taken earlier are expected: the console sums those
    /// up in one line per look (``SourceEvent/notice(_:_:)``); the others each get a line.
    public var atStart: Bool

    public init(fileName: String, matched: String, atStart: Bool) {
        self.fileName = fileName
        self.matched = matched
        self.atStart = atStart
    }

    /// One line summing up the photos declined in one look at a source's start, naming a few.
    public static func summary(_ declined: [AlreadyTaken], in place: String) -> String? {
        guard let first = declined.first else { return nil }
        let shown = declined.prefix(3).map(\.fileName).joined(separator: ", ")
        let more = declined.count > 3 ? " and \(declined.count - 3) more" : ""
        return "\(declined.count) photo(s) \(place) were taken before (or left there when relay first met the source) "
            + "and are not sent again (\(shown)\(more); first match: \(first.matched)); --json lists each with what it matched"
    }
}

/// A camera card's free space.
public struct CardSpace: Sendable, Equatable {
    public var freeBytes: Int64?
    /// Shots that still fit, as the camera estimates them (PTP FreeSpaceInImages).
    public var freeShots: Int?

    public init(freeBytes: Int64?, freeShots: Int?) {
        self.freeBytes = freeBytes
        self.freeShots = freeShots
    }
}

/// A photo just committed to the spool.
public struct SpooledPhoto: Sendable, Equatable {
    public var photo: PhotoRef
    /// Its name on the camera (or in the folder, or as uploaded over FTP).
    public var cameraFileName: String
    /// Best known shutter time.
    public var capturedAt: Date
    /// Its file in the spool (gone once every destination has it).
    public var path: String

    public init(photo: PhotoRef, cameraFileName: String, capturedAt: Date, path: String) {
        self.photo = photo
        self.cameraFileName = cameraFileName
        self.capturedAt = capturedAt
        self.path = path
    }
}

/// A spooled photo, as every later event names it.
public struct PhotoRef: Sendable, Equatable {
    /// The spool's id for it.
    public var id: String
    /// The name it is sent under.
    public var name: String
    public var bytes: Int64
    /// Its shot number in a timed capture.
    public var shot: Int?
    /// The size of the rendition sent instead, once one is made.
    public var renditionBytes: Int64?
    /// Who shot it, when the run knows (a receiver's login).
    public var photographer: String?

    public init(id: String, name: String, bytes: Int64, shot: Int? = nil, renditionBytes: Int64? = nil, photographer: String? = nil) {
        self.photographer = photographer
        self.id = id
        self.name = name
        self.bytes = bytes
        self.shot = shot
        self.renditionBytes = renditionBytes
    }
}

extension SourceEvent {
    /// A notice worth knowing.
    public static func info(_ message: String) -> SourceEvent { .notice(message, .info) }
    /// A notice about something wrong that the source works around or retries.
    public static func warning(_ message: String) -> SourceEvent { .notice(message, .warning) }
}
