import PTPIP
import PTPWire
import PhotoMetadata

/// Nikon DSLRs and Z bodies.
///
/// - New photos: GetEventEx (0x941C) or GetEvent (0x90C7), polled with the adaptive interval,
///   and ObjectAdded pushed on the event channel, both at once and de-duplicated by handle.
/// - Z bodies report vendor id 0xFFFFFFFF over PTP/IP and are recognised by their manufacturer
///   (libgphoto2 issue 1135).
/// - In "connect to computer" mode a Z answers AccessDenied to GetObjectInfo and
///   GetPartialObject, while GetPartialObjectEx (0x9431) works (libgphoto2 issue 976): relay
///   then tells JPEG from RAW by the first bytes, names the file itself, sizes it with
///   GetObjectSize (0x9421) where that answers, else learns the size at the download's end,
///   and downloads with GetPartialObjectEx.
/// - Such a body may list none of these operations (the Z 8 of libgphoto2 issue 1135 lists
///   nine), so each one relay would like is asked once (``OperationSupport``), and the codes the
///   body names with GetVendorCodes (0x9439) count as listed.
/// - Right after a shot a Nikon answers GeneralError to GetObjectInfo for up to about a second
///   (airnef retries for 5 s): the session retries that object, not the connection.
struct NikonDialect: CameraDialect {
    private var interval = AdaptivePollInterval()
    /// Set once GetPartialObject was denied ("connect to computer" mode).
    private var deniedPartialObject = false
    /// Handles announced in this session, on either road.
    private var announced: Set<UInt32> = []
    /// Whether the body was told that relay relies on pushed events alone.
    private var reportedPushOnly = false

    static func recognises(_ info: PTPDeviceInfo) -> Bool { CameraVendor.of(info) == .nikon }

    var description: String { "Nikon events" }

    /// GetVendorCodes where listed (libgphoto2 `fixup_cached_deviceinfo` asks it with 0xD): the
    /// operations among the codes count as listed. A body that refuses it is served all the same.
    mutating func start(_ session: CameraSession) throws(PTPIPError) -> [ObjectAnnouncement] {
        guard session.deviceInfo.supports(.nikonGetVendorCodes) else { return [] }
        let reply = try session.call(.nikonGetVendorCodes, [0xD], dataIn: .collect(limit: CameraSession.collectLimit))
        var reader = PTPDataReader(reply.data ?? [])
        guard reply.code.isOK, let codes = try? reader.readArrayU32() else { return [] }
        let operations = session.learnNamedCodes(codes)
        if !operations.isEmpty {
            session.notices.append(
                "\(session.name) names \(operations.count) operation(s) it does not list: "
                    + operations.map { PTPOperationCode($0).description }.joined(separator: ", "))
        }
        return []
    }

    /// The event list operation to poll: GetEventEx where known to work or not yet asked, then
    /// GetEvent; nil when the body answers neither.
    static func eventListOperation(_ session: CameraSession) -> PTPOperationCode? {
        if session.supports(.nikonGetEventEx) { return .nikonGetEventEx }
        if session.supports(.nikonGetEvent) { return .nikonGetEvent }
        return [.nikonGetEventEx, .nikonGetEvent].first { session.mayTry($0) }
    }

    mutating func poll(_ session: CameraSession, wait: Double) throws(PTPIPError) -> CameraNews {
        var pushed = CameraNews()
        while let operation = Self.eventListOperation(session) {
            pushed.merge(try pushedEvents(session, wait: min(wait, interval.current)))
            let reply = try session.call(operation, dataIn: .collect(limit: CameraSession.collectLimit))
            if !reply.code.isOK && reply.code != .deviceBusy && !session.deviceInfo.supports(operation) {
                // Unlisted and refused (not just busy): the event channel does, not a reconnect.
                session.giveUp(operation)
                continue
            }
            try CameraSession.requireOK(reply, operation, address: session.address)
            let list: NikonEventList
            do {
                let data = reply.data ?? []
                list = operation == .nikonGetEventEx ? try NikonEventList(decodingEx: data) : try NikonEventList(decoding: data)
            } catch {
                throw .protocolViolation(peer: session.address, detail: "unreadable Nikon event list: \(error)")
            }
            for event in list.events { session.powerSignals.note(event.code, parameter: event.parameter) }
            interval.record(activity: !list.events.isEmpty || !pushed.isEmpty)
            // A DSLR lists ObjectInfoChanged when a shot is protected or rated (gphoto2 issue 468, D5600).
            let changed = list.events.filter { $0.code == .objectInfoChanged }.map { ObjectChange(handle: $0.parameter) }
            return CameraNews(
                added: fresh(pushed.added.map(\.handle) + list.addedObjectHandles), changed: pushed.changed + changed)
        }
        if !reportedPushOnly {
            reportedPushOnly = true
            session.notices.append(
                "\(session.name) answers neither Nikon GetEventEx nor GetEvent in this mode: "
                    + "relay takes the photos it announces on its event channel")
        }
        pushed.merge(try pushedEvents(session, wait: pushed.isEmpty ? wait : 0))
        return CameraNews(added: fresh(pushed.added.map(\.handle)), changed: pushed.changed)
    }

    /// Each handle once per session, whichever road announced it first.
    private mutating func fresh(_ handles: [UInt32]) -> [ObjectAnnouncement] {
        handles.filter { announced.insert($0).inserted }.map { ObjectAnnouncement(handle: $0) }
    }

    func downloadOperation(_ session: CameraSession) -> DownloadOperation {
        Self.downloadOperation(
            ex: session.supports(.nikonGetPartialObjectEx) ? .answers : session.mayTry(.nikonGetPartialObjectEx) ? .notAsked : .refuses,
            partialListed: session.deviceInfo.supports(.getPartialObject), partialDenied: deniedPartialObject)
    }

    /// What relay knows of an operation it would like.
    enum Availability { case answers, notAsked, refuses }

    /// GetPartialObjectEx where it answers, or where GetPartialObject is unlisted or denied and
    /// it was not asked yet; else GetPartialObject where listed and not denied; else GetObject.
    static func downloadOperation(ex: Availability, partialListed: Bool, partialDenied: Bool) -> DownloadOperation {
        if ex == .answers { return .nikonPartialObjectEx }
        let partialUsable = partialListed && !partialDenied
        if ex == .notAsked && !partialUsable { return .nikonPartialObjectEx }
        return partialUsable ? .partialObject : .wholeObject
    }

    mutating func switchDownload(afterRefusal response: PTPResponseCode) -> Bool {
        guard response == .accessDenied, !deniedPartialObject else { return false }
        deniedPartialObject = true
        return true
    }

    /// A Z in "connect to computer" mode: its first bytes (GetPartialObjectEx, as many as its
    /// header identity needs) tell its kind and, read by the session, what it is; a name of
    /// relay's own from its handle until then; the size from GetObjectSize where the body
    /// answers it, else unknown until the download's end. An object GetObjectSize does not know
    /// (a folder of the card) is described as a folder.
    func describeWithoutObjectInfo(
        _ handle: UInt32, refused response: PTPResponseCode,
        session: CameraSession
    ) throws(PTPIPError) -> UndescribedObject? {
        guard response == .accessDenied else { return nil }
        var size: UInt32?
        if session.mayTry(.nikonGetObjectSize) {
            let sized = try session.call(.nikonGetObjectSize, [handle], dataIn: .collect(limit: 64))
            if sized.code == .invalidObjectHandle { return UndescribedObject(info: .folder) }
            var reader = PTPDataReader(sized.data ?? [])
            if sized.code.isOK, let bytes = try? reader.readU64(), bytes > 0, bytes < UInt64(UInt32.max) { size = UInt32(bytes) }
        }
        guard session.mayTry(.nikonGetPartialObjectEx) else { return nil }
        let length = PhotoHeaderIdentity.readLength
        let head = try session.call(
            .nikonGetPartialObjectEx, [handle, 0, 0, UInt32(length), 0], dataIn: .collect(limit: length))
        guard head.code.isOK, let bytes = head.data, !bytes.isEmpty else { return nil }
        return UndescribedObject(
            info: .described(handle: handle, kind: FileSignature.kind(of: bytes), size: size, namePrefix: "NIKON"), head: bytes)
    }
}
