import PTPIP
import PTPWire

/// A new object a camera told relay about.
struct ObjectAnnouncement: Equatable, Sendable {
    var handle: UInt32
    /// The camera keeps the object in its memory until TransferComplete (Canon capture to RAM).
    var needsTransferComplete = false
    /// What the announcement itself says about the object, for bodies whose GetObjectInfo may
    /// fail for such objects (Canon captures held in camera memory): relay then downloads from it.
    var described: PTPObjectInfo?
    /// The announcement gave no name: `described` holds one of relay's own.
    var namedByRelay = false
}

/// What a camera told relay in one poll: new objects, and objects whose description changed.
struct CameraNews: Equatable, Sendable {
    var added: [ObjectAnnouncement] = []
    /// Objects the photographer may have protected, rated or asked to transfer since relay
    /// looked (ObjectInfoChanged 0x4007, Canon's 0xC187/0xC188 and their 64-bit forms).
    var changed: [ObjectChange] = []

    var isEmpty: Bool { added.isEmpty && changed.isEmpty }

    mutating func merge(_ more: CameraNews) {
        added += more.added
        changed += more.changed
    }
}

/// An object on the card the camera said changed: relay reads its protection and, for a
/// JPEG, the rating in its header again (issue 41).
struct ObjectChange: Equatable, Sendable {
    var handle: UInt32
    /// The body asked for the photo to be transferred: the photographer pressed its transfer
    /// button (Canon's RequestObjectTransferDT, or RequestObjectTransfer for a photo on the card).
    var transferRequested = false
    /// The body waits for TransferComplete once the photo is taken (RequestObjectTransfer's
    /// contract, libgphoto2 library.c); not known of the Direct Transfer records.
    var awaitsTransferComplete = false
}

/// How to read an object's bytes from the camera.
enum DownloadOperation: Equatable, Sendable {
    /// GetPartialObject (0x101B): 32-bit offsets, resumable.
    case partialObject
    /// Nikon GetPartialObjectEx (0x9431): 64-bit offsets, resumable; works where a Nikon Z in
    /// "connect to computer" mode denies GetPartialObject (libgphoto2 issue 976).
    case nikonPartialObjectEx
    /// GetObject (0x1009): the whole object in one data phase (streamed all the same); a cut
    /// download starts again.
    case wholeObject

    var resumable: Bool { self != .wholeObject }

    var code: PTPOperationCode {
        switch self {
        case .partialObject: return .getPartialObject
        case .nikonPartialObjectEx: return .nikonGetPartialObjectEx
        case .wholeObject: return .getObject
        }
    }

    /// The request's parameters for `count` bytes of object `handle` from `offset` (GetObject
    /// takes the handle alone).
    func parameters(handle: UInt32, offset: Int64, count: Int64) -> [UInt32] {
        switch self {
        case .partialObject: return [handle, UInt32(truncatingIfNeeded: offset), UInt32(truncatingIfNeeded: count)]
        case .nikonPartialObjectEx:
            return [
                handle, UInt32(truncatingIfNeeded: offset), UInt32(truncatingIfNeeded: offset >> 32),
                UInt32(truncatingIfNeeded: count), UInt32(truncatingIfNeeded: count >> 32),
            ]
        case .wholeObject: return [handle]
        }
    }
}

/// What one vendor family does differently on the wire: how it is recognised, started and
/// stopped, how it announces new photos, how they are described, downloaded and released, and
/// how the shutter is fired. `TetherSession` speaks to a camera only through its dialect, so
/// adding a vendor means adding one dialect (and one simulator profile).
///
/// A dialect value belongs to one session and lives on the camera's thread.
protocol CameraDialect: Sendable {
    /// Whether this dialect speaks to the camera that sent `info` (vendor id, manufacturer,
    /// model and the operations it lists).
    static func recognises(_ info: PTPDeviceInfo) -> Bool
    init()
    /// For messages: "Canon EOS events".
    var description: String { get }

    /// Start-up after OpenSession and GetDeviceInfo, before anything else is sent; returns what
    /// the camera announced during it.
    mutating func start(_ session: CameraSession) throws(PTPIPError) -> [ObjectAnnouncement]
    /// Waits at most `wait` seconds (a polling dialect waits its own, shorter interval) and
    /// returns the objects announced, and those said to have changed, meanwhile.
    mutating func poll(_ session: CameraSession, wait: Double) throws(PTPIPError) -> CameraNews
    /// Called between steps: whatever keeps the body awake and the link up; a body that ends a
    /// silent session is sent an operation once `idle` seconds passed without one.
    mutating func keepAlive(_ session: CameraSession, now: Double, idle: Double) throws(PTPIPError)
    /// The dialect's part of a clean stop, before CloseSession; each operation within `timeout`.
    func stop(_ session: CameraSession, timeout: Double) throws(PTPIPError)

    /// The operation listing the storages, nil when the card cannot be browsed in this mode
    /// (then relay relies on events alone).
    func storageListing(_ session: CameraSession) -> PTPOperationCode?
    /// Whether the body hands out the same handle to each new photo (Sony's 0xFFFFC001), so a
    /// handle must be forgotten once its photo is dealt with.
    var reusesHandles: Bool { get }
    /// An object GetObjectInfo refused with `response`, described another way; nil when the
    /// dialect knows none (the object is then set aside).
    func describeWithoutObjectInfo(
        _ handle: UInt32, refused response: PTPResponseCode,
        session: CameraSession
    ) throws(PTPIPError) -> UndescribedObject?
    /// Whether the card protects `object` as the body's own listing says it (nil: the
    /// standard ObjectInfo's ProtectionStatus, read by the session, is the answer).
    func isProtected(_ object: CameraObject, session: CameraSession) throws(PTPIPError) -> Bool?
    /// How this body's objects are read.
    func downloadOperation(_ session: CameraSession) -> DownloadOperation
    /// The camera refused a transfer with `response`: whether the dialect switched to another
    /// way of reading objects, so the download is worth trying again at once.
    mutating func switchDownload(afterRefusal response: PTPResponseCode) -> Bool
    /// After a download, or a decision not to take the object (`downloaded` false): what the body
    /// needs to let go of it (Canon: TransferComplete for a capture held in memory; Sony: the
    /// object in memory read to its end).
    func release(_ object: CameraObject, downloaded: Bool, session: CameraSession) throws(PTPIPError)
    /// How this body's shutter is fired, or why it cannot be.
    func trigger(_ session: CameraSession) -> Result<CaptureTrigger, TriggerUnavailable>
    /// The exposure time the body last reported, so a timed shot's photo is awaited that long
    /// (nil: it reports none, or bulb).
    var exposureSeconds: Double? { get }

    /// Bracketing: the body's exposure mode and the speeds it offers; nil when relay cannot set
    /// this body's shutter speed.
    func exposureControl(_ session: CameraSession) throws(PTPIPError) -> ExposureControl?
    /// Writes `speed` (one of `control.offered`, or any when the body lists none); the body's answer.
    func setShutterSpeed(_ speed: ShutterSpeed, _ control: ExposureControl, session: CameraSession) throws(PTPIPError)
        -> PTPResponseCode
    /// The speed the body reports now, to confirm a new one before the release.
    mutating func shutterSpeed(_ session: CameraSession) throws(PTPIPError) -> ShutterSpeed?
}

extension CameraDialect {
    /// After `idle` seconds without an operation (a body that only pushes events and shoots
    /// nothing for a while), a GetDeviceInfo: every PTP body answers it, and it changes nothing
    /// on the camera.
    mutating func keepAlive(_ session: CameraSession, now: Double, idle: Double) throws(PTPIPError) {
        guard now - session.client.lastTransactionStart >= idle else { return }
        _ = try session.call(.getDeviceInfo, dataIn: .collect(limit: CameraSession.collectLimit))
    }
    func stop(_ session: CameraSession, timeout: Double) throws(PTPIPError) {}
    var reusesHandles: Bool { false }

    /// The standard properties ExposureTime and ExposureProgramMode, where the body lists them.
    func exposureControl(_ session: CameraSession) throws(PTPIPError) -> ExposureControl? {
        try StandardExposure.nikon.control(session)
    }

    func setShutterSpeed(_ speed: ShutterSpeed, _ control: ExposureControl, session: CameraSession) throws(PTPIPError)
        -> PTPResponseCode
    {
        try StandardExposure.nikon.set(speed, control, session)
    }

    mutating func shutterSpeed(_ session: CameraSession) throws(PTPIPError) -> ShutterSpeed? {
        try StandardExposure.nikon.current(session)
    }
    var exposureSeconds: Double? { nil }

    func storageListing(_ session: CameraSession) -> PTPOperationCode? {
        session.supports(.getObjectHandles) ? .getStorageIDs : nil
    }

    func describeWithoutObjectInfo(
        _ handle: UInt32, refused response: PTPResponseCode,
        session: CameraSession
    ) throws(PTPIPError) -> UndescribedObject? { nil }

    func downloadOperation(_ session: CameraSession) -> DownloadOperation {
        session.supports(.getPartialObject) ? .partialObject : .wholeObject
    }

    func isProtected(_ object: CameraObject, session: CameraSession) throws(PTPIPError) -> Bool? { nil }

    func release(_ object: CameraObject, downloaded: Bool, session: CameraSession) throws(PTPIPError) {}

    mutating func switchDownload(afterRefusal response: PTPResponseCode) -> Bool { false }

    func trigger(_ session: CameraSession) -> Result<CaptureTrigger, TriggerUnavailable> {
        CaptureTrigger.standard(session)
    }

    /// Events pushed on the event channel, waiting up to `wait`: `added` codes announce new
    /// objects (ObjectAdded on standard cameras, and any body that pushes it besides its own
    /// event list), ObjectInfoChanged (0x4007) a changed one; probes are answered.
    func pushedEvents(
        _ session: CameraSession, wait: Double,
        added codes: Set<PTPEventCode> = [.objectAdded]
    ) throws(PTPIPError) -> CameraNews {
        var news = CameraNews()
        for event in try session.client.events(timeout: wait) {
            session.powerSignals.note(event.code, parameter: event.parameters.first)
            guard let handle = event.parameters.first else { continue }
            if codes.contains(event.code) {
                news.added.append(ObjectAnnouncement(handle: handle))
            } else if event.code == .objectInfoChanged {
                news.changed.append(ObjectChange(handle: handle))
            }
        }
        return news
    }
}

/// The dialects relay speaks, in the order they are tried; a camera none recognises gets the
/// standard one.
enum DialectCatalog {
    static let families: [any CameraDialect.Type] = [CanonEOSDialect.self, NikonDialect.self, SonyDialect.self]

    /// The dialect for the camera that sent `info`.
    static func dialect(for info: PTPDeviceInfo) -> any CameraDialect {
        for family in families where family.recognises(info) { return family.init() }
        return StandardDialect()
    }
}

/// Who made a camera, from its DeviceInfo. The vendor extension id decides when it names a
/// vendor; Canon and Nikon bodies also report Microsoft's (6), and Nikon Z and Sony bodies
/// over PTP/IP 0xFFFFFFFF, so then the manufacturer string decides, as in libgphoto2
/// (`fixup_cached_deviceinfo`; libgphoto2 issues 16, 1135).
enum CameraVendor: Equatable, Sendable {
    case canon, nikon, sony, fujifilm, other

    static func of(_ info: PTPDeviceInfo) -> CameraVendor {
        switch info.vendorExtensionID {
        case .canon: return .canon
        case .nikon: return .nikon
        case .sony: return .sony
        case .fuji: return .fujifilm
        default:
            let manufacturer = info.manufacturer.lowercased()
            if manufacturer.contains("canon") { return .canon }
            if manufacturer.contains("nikon") { return .nikon }
            if manufacturer.contains("sony") { return .sony }
            if manufacturer.contains("fujifilm") { return .fujifilm }
            return .other
        }
    }
}
