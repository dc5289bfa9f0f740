import PTPIP
import PTPWire

/// Nikon DSLRs and Z bodies.
///
/// - New photos: GetEvent (0x90C7), or GetEventEx (0x941C) where listed, polled with the
///   adaptive interval, besides ObjectAdded pushed on the event channel.
/// - Z bodies report vendor id 0xFFFFFFFF over PTP/IP and are recognised by their manufacturer
///   (libgphoto2 issue 1135).
/// - In "connect to computer" mode a Z answers AccessDenied to GetObjectInfo and
///   GetPartialObject, while GetObjectSize (0x9421) and GetPartialObjectEx (0x9431) work
///   (libgphoto2 issue 976): relay then learns the size from GetObjectSize, tells JPEG from RAW
///   by the first bytes, names the file itself, and downloads with GetPartialObjectEx.
/// - Right after a shot a Nikon answers GeneralError to GetObjectInfo for up to about a second
///   (airnef retries for 5 s): the session retries that object, not the connection.
struct NikonDialect: CameraDialect {
    private var interval = AdaptivePollInterval()
    /// Set once GetPartialObject was denied: a Z in "connect to computer" mode may not list
    /// GetPartialObjectEx (the Z 8 of libgphoto2 issue 1135 listed nine operations) yet answer it.
    private var deniedPartialObject = false

    static func recognises(_ info: PTPDeviceInfo) -> Bool { CameraVendor.of(info) == .nikon }

    var description: String { "Nikon events" }

    mutating func start(_ session: CameraSession) throws(PTPIPError) -> [ObjectAnnouncement] { [] }

    mutating func poll(_ session: CameraSession, wait: Double) throws(PTPIPError) -> [ObjectAnnouncement] {
        let operation: PTPOperationCode? =
            session.supports(.nikonGetEventEx)
            ? .nikonGetEventEx
            : session.supports(.nikonGetEvent) ? .nikonGetEvent : nil
        guard let operation else { return try pushedObjects(session, wait: wait) }
        let pushed = try pushedObjects(session, wait: min(wait, interval.current))
        let data = try session.data(operation)
        let list: NikonEventList
        do {
            list = operation == .nikonGetEventEx ? try NikonEventList(decodingEx: data) : try NikonEventList(decoding: data)
        } catch {
            throw .protocolViolation(peer: session.address, detail: "unreadable Nikon event list: \(error)")
        }
        for event in list.events { session.powerSignals.note(event.code, parameter: event.parameter) }
        interval.record(activity: !list.events.isEmpty || !pushed.isEmpty)
        return pushed + list.addedObjectHandles.map { ObjectAnnouncement(handle: $0) }
    }

    func downloadOperation(_ session: CameraSession) -> DownloadOperation {
        Self.downloadOperation(
            listsEx: session.supports(.nikonGetPartialObjectEx),
            listsPartial: session.supports(.getPartialObject), partialDenied: deniedPartialObject)
    }

    /// GetPartialObjectEx where listed or where GetPartialObject was denied, else GetPartialObject
    /// where listed, else GetObject.
    static func downloadOperation(listsEx: Bool, listsPartial: Bool, partialDenied: Bool) -> DownloadOperation {
        if listsEx || partialDenied { return .nikonPartialObjectEx }
        return listsPartial ? .partialObject : .wholeObject
    }

    mutating func switchDownload(afterRefusal response: PTPResponseCode) -> Bool {
        guard response == .accessDenied, !deniedPartialObject else { return false }
        deniedPartialObject = true
        return true
    }

    /// A Z in "connect to computer" mode: size from GetObjectSize, kind from the first bytes, a
    /// name of relay's own that stays the same for this object across retries and restarts. An
    /// object GetObjectSize does not know (a folder of the card) is described as a folder.
    func describeWithoutObjectInfo(
        _ handle: UInt32, refused response: PTPResponseCode,
        session: CameraSession
    ) throws(PTPIPError) -> PTPObjectInfo? {
        guard response == .accessDenied else { return nil }
        let sized = try session.call(.nikonGetObjectSize, [handle], dataIn: .collect(limit: 64))
        if sized.code == .invalidObjectHandle { return .folder }
        var reader = PTPDataReader(sized.data ?? [])
        guard sized.code.isOK, let size = try? reader.readU64(), size > 0, size <= UInt64(UInt32.max) else { return nil }
        let head = try session.call(
            .nikonGetPartialObjectEx, [handle, 0, 0, UInt32(FileSignature.prefixLength), 0],
            dataIn: .collect(limit: FileSignature.prefixLength))
        guard head.code.isOK else { return nil }
        return .described(handle: handle, kind: FileSignature.kind(of: head.data ?? []), size: UInt32(size), namePrefix: "NIKON")
    }
}
