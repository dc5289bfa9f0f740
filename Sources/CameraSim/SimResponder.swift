import Foundation
import PTPWire

/// The data phase of a reply: a dataset made in memory, or a stretch of a photo that the session
/// reads from its content piece by piece while it sends it, so that a large file from `--photos`
/// is never held in memory whole.
public enum SimData: Sendable, Equatable {
    case bytes([UInt8])
    case object(PhotoContent, offset: Int, count: Int)

    public var count: Int {
        switch self {
        case .bytes(let bytes): return bytes.count
        case .object(_, _, let count): return count
        }
    }

    /// Up to `length` bytes from `position` (relative to the start of this data).
    public func read(at position: Int, length: Int) throws -> [UInt8] {
        let length = max(0, min(length, count - position))
        switch self {
        case .bytes(let bytes): return Array(bytes[position..<(position + length)])
        case let .object(content, offset, _): return try content.read(offset: offset + position, count: length)
        }
    }
}

/// What the camera answers to one operation: the response, an optional data phase, and what
/// else happens because of it (events to push).
public struct SimReply: Sendable {
    public var code: PTPResponseCode
    public var parameters: [UInt32] = []
    /// Data sent to the client before the response (data-in operations).
    public var data: SimData?
    /// Events pushed on the event channel after the response (standard PTP cameras).
    public var events: [PTPEvent] = []

    public init(code: PTPResponseCode, parameters: [UInt32] = [], data: [UInt8]? = nil) {
        self.code = code
        self.parameters = parameters
        self.data = data.map(SimData.bytes)
    }

    /// Whether the data is a photo's bytes (GetObject, GetPartialObject): the transfer faults
    /// count these.
    public var isObjectTransfer: Bool {
        if case .object = data { return true }
        return false
    }
}

/// The camera's behaviour for one client session, without any I/O: given an operation (and the
/// data the client sent with it) it decides the reply. The session loop does the sockets and
/// the faults; this part is tested directly.
public struct SimResponder: Sendable {
    public let profile: SimProfile
    public let card: CameraCard
    /// Frames per shot for capture operations.
    public let burst: Int
    public private(set) var sessionOpen = false
    /// Canon: GetEvent reports only the terminator until SetEventMode(1).
    public private(set) var eventModeOn = false
    public private(set) var remoteMode: UInt32 = 0
    /// Photos announced by the camera but not yet fetched by a Canon or Nikon GetEvent, or
    /// pushed (standard profile).
    private var undelivered: [SimObject] = []
    /// Canon: the first GetEvent after SetEventMode(1) is the recorded property dump.
    private var sentPropertyDump = false
    /// Canon: property changes waiting for the next GetEvent.
    private var pendingPropertyChanges: [CanonEOSEventRecord] = []
    private var batteryLevel: UInt32 = 3
    /// Canon: PropValueChanged records added to every GetEvent reply (a body that reports its
    /// properties on every poll).
    public let propertyFlood: Int
    /// Whether the camera can be fired remotely (a body in playback mode cannot).
    public let remoteCapture: Bool

    public init(profile: SimProfile, card: CameraCard, burst: Int, propertyFlood: Int = 0, remoteCapture: Bool = true) {
        self.profile = profile
        self.card = card
        self.burst = burst
        self.propertyFlood = propertyFlood
        self.remoteCapture = remoteCapture
    }

    /// Whether `request` fires the shutter (a Canon half press does not).
    public static func isShutterRelease(_ request: PTPOperationRequest) -> Bool {
        switch request.code.rawValue {
        case 0x100E, 0x910F: return true
        case 0x9128: return (request.parameters.first ?? 0) & 2 != 0
        default: return false
        }
    }

    /// Canon EOS battery level property (PTP_DPC_CANON_EOS_BatteryPower).
    static let batteryPowerProperty: UInt32 = 0xD111

    /// A property changed on the body (the battery level, now and then): reported with the next
    /// GetEvent (Canon only; other profiles ignore it).
    public mutating func changeProperty() {
        guard profile == .canonEOS else { return }
        batteryLevel = batteryLevel == 1 ? 3 : batteryLevel - 1
        pendingPropertyChanges.append(.propValueChanged(property: Self.batteryPowerProperty, value: batteryLevel, raw: []))
    }

    // MARK: - DeviceInfo

    /// Operations listed in DeviceInfo: gphoto2 decides what to call from this list, so it holds
    /// exactly what this profile answers.
    public static func operations(for profile: SimProfile, remoteCapture: Bool = true) -> [UInt16] {
        let all = allOperations(for: profile)
        return remoteCapture ? all : all.filter { !captureOperations.contains($0) }
    }

    /// The operations that fire the shutter.
    static let captureOperations: Set<UInt16> = [0x100E, 0x910F, 0x9128, 0x9129]

    private static func allOperations(for profile: SimProfile) -> [UInt16] {
        let common: [UInt16] = [0x1001, 0x1002, 0x1003, 0x1004, 0x1005, 0x1006, 0x1007, 0x1008, 0x1009, 0x100B, 0x101B]
        switch profile {
        case .canonEOS:
            return common + [0x9101, 0x9102, 0x910F, 0x9110, 0x9114, 0x9115, 0x9116, 0x9117, 0x911D, 0x9128, 0x9129]
        case .nikon:
            return common + [0x100E, 0x90C7, 0x941C]
        case .generic:
            return common + [0x100E]
        }
    }

    public static func events(for profile: SimProfile) -> [UInt16] {
        switch profile {
        case .canonEOS: return [0x4002, 0xC181, 0xC186, 0xC189]
        case .nikon, .generic: return [0x4002, 0x4003, 0x400D]
        }
    }

    public static func deviceInfo(for profile: SimProfile, remoteCapture: Bool = true) -> PTPDeviceInfo {
        let raw = profile.rawFormat.formatCode
        return PTPDeviceInfo(
            standardVersion: 100,
            vendorExtensionID: PTPVendorExtension(profile.vendorExtensionID),
            vendorExtensionVersion: 100,
            vendorExtensionDescription: profile.vendorExtensionDescription,
            functionalMode: 0,
            operationsSupported: operations(for: profile, remoteCapture: remoteCapture),
            eventsSupported: events(for: profile),
            devicePropertiesSupported: [],
            captureFormats: [CameraCard.formatJPEG],
            imageFormats: [CameraCard.formatAssociation, CameraCard.formatJPEG, raw],
            manufacturer: profile.manufacturer,
            model: profile.model,
            deviceVersion: profile.deviceVersion,
            serialNumber: serialNumber(for: profile))
    }

    /// A stable serial per profile, so that a client remembering cameras by serial sees the same
    /// camera across restarts.
    public static func serialNumber(for profile: SimProfile) -> String {
        switch profile {
        case .canonEOS: return "SIM0CANON0001"
        case .nikon: return "SIM0NIKON0001"
        case .generic: return "SIM0GENERIC01"
        }
    }

    // MARK: - Operations

    /// Moves photos shot since the last call into this session's undelivered list; called by
    /// the session loop between operations.
    public mutating func collectNewShots() {
        undelivered += card.takeNewObjects()
    }

    /// Events to push now on the event channel (standard profile only): one ObjectAdded per
    /// new photo, each once.
    public mutating func takePushEvents() -> [PTPEvent] {
        guard profile == .generic, sessionOpen else { return [] }
        let events = undelivered.map { PTPEvent(code: .objectAdded, parameters: [$0.handle]) }
        undelivered.removeAll()
        return events
    }

    /// Whether an operation is exempt from the DeviceBusy faults: without these a client could
    /// never get far enough to retry.
    public static func isExemptFromBusy(_ code: PTPOperationCode) -> Bool {
        code == .openSession || code == .closeSession || code == .getDeviceInfo
    }

    /// The reply to `request`; `dataOut` is what the client sent in a data-out phase.
    public mutating func respond(to request: PTPOperationRequest, dataOut: [UInt8]?) -> SimReply {
        let p = request.parameters
        func param(_ index: Int) -> UInt32 { index < p.count ? p[index] : 0 }
        let code = request.code
        if code == .getDeviceInfo {
            return SimReply(code: .ok, data: Self.deviceInfo(for: profile, remoteCapture: remoteCapture).encoded())
        }
        if code == .openSession {
            if sessionOpen { return SimReply(code: .sessionAlreadyOpen, parameters: [param(0)]) }
            guard param(0) != 0 else { return SimReply(code: .invalidParameter) }
            sessionOpen = true
            return SimReply(code: .ok)
        }
        guard Self.operations(for: profile, remoteCapture: remoteCapture).contains(code.rawValue) else {
            return SimReply(code: .operationNotSupported)
        }
        guard sessionOpen else { return SimReply(code: .sessionNotOpen) }
        switch code.rawValue {
        case 0x1003:
            sessionOpen = false
            eventModeOn = false
            return SimReply(code: .ok)
        case 0x1004, 0x9101:
            var writer = PTPDataWriter()
            writer.appendArrayU32([CameraCard.storageID])
            return SimReply(code: .ok, data: writer.bytes)
        case 0x1005, 0x9102:
            if code.rawValue == 0x1005 && param(0) != CameraCard.storageID {
                return SimReply(code: .invalidStorageID)
            }
            return SimReply(code: .ok, data: storageInfo())
        case 0x1006:
            guard storageMatches(param(0)) else { return SimReply(code: .invalidStorageID) }
            let count = card.handles(format: UInt16(truncatingIfNeeded: param(1)), parent: parentFilter(param(2), count: p.count)).count
            return SimReply(code: .ok, parameters: [UInt32(truncatingIfNeeded: count)])
        case 0x1007:
            guard storageMatches(param(0)) else { return SimReply(code: .invalidStorageID) }
            var writer = PTPDataWriter()
            writer.appendArrayU32(card.handles(format: UInt16(truncatingIfNeeded: param(1)),
                                               parent: parentFilter(param(2), count: p.count)))
            return SimReply(code: .ok, data: writer.bytes)
        case 0x1008:
            guard let object = card.object(param(0)) else { return SimReply(code: .invalidObjectHandle) }
            return SimReply(code: .ok, data: Self.objectInfo(object).encoded())
        case 0x1009:
            return transfer(handle: param(0), offset: 0, count: Int.max, reportCount: false)
        case 0x101B:
            return transfer(handle: param(0), offset: Int(param(1)), count: Int(param(2)), reportCount: true)
        case 0x100B:
            return SimReply(code: card.delete(param(0)) ? .ok : .invalidObjectHandle)
        case 0x100E:
            shoot()
            var reply = SimReply(code: .ok)
            if profile == .generic {
                reply.events = takePushEvents()
            } else {
                // Nikon: the result of InitiateCapture also comes on the event channel (gphoto2
                // waits there after this operation); the shots stay queued for GetEvent as well.
                reply.events = undelivered.map { PTPEvent(code: .objectAdded, parameters: [$0.handle]) }
            }
            reply.events.append(PTPEvent(code: .captureComplete, transactionID: request.transactionID))
            return reply
        case 0x90C7, 0x941C:
            let list = NikonEventList(events: undelivered.map { NikonEvent(code: .objectAdded, parameter: $0.handle) })
            undelivered.removeAll()
            return SimReply(code: .ok, data: code.rawValue == 0x941C ? list.encodedEx() : list.encoded())
        case 0x9114:
            remoteMode = param(0)
            return SimReply(code: .ok)
        case 0x9115:
            eventModeOn = param(0) != 0
            return SimReply(code: .ok)
        case 0x9116:
            guard eventModeOn else { return SimReply(code: .ok, data: CanonEOSEventList.encode([])) }
            if !sentPropertyDump {
                sentPropertyDump = true
                return SimReply(code: .ok, data: CanonEOSRecordedEvents.firstGetEvent)
            }
            let flood = (0..<propertyFlood).map { index in
                CanonEOSEventRecord.propValueChanged(property: 0xD101 + UInt32(index % 64), value: UInt32(index), raw: [])
            }
            let records = pendingPropertyChanges + flood + undelivered.map(Self.canonRecord)
            pendingPropertyChanges.removeAll()
            undelivered.removeAll()
            return SimReply(code: .ok, data: CanonEOSEventList.encode(records))
        case 0x9117:
            if let object = card.object(param(0)), object.inMemory { _ = card.delete(object.handle) }
            return SimReply(code: .ok)
        case 0x910F:
            shoot()
            return SimReply(code: .ok)
        case 0x9128:
            // 1 = half press (focus only), 2 = full press, 3 = both: a full press takes the shot.
            if param(0) & 2 != 0 { shoot() }
            return SimReply(code: .ok)
        case 0x9129, 0x911D:
            return SimReply(code: .ok)
        case 0x9110:
            // SetDevicePropValueEx (data-out: size, property, value): accepted, as a body does for
            // the properties clients set (gphoto2 sets the capture destination).
            return SimReply(code: dataOut.map { $0.count >= 8 } == true ? .ok : .invalidParameter)
        default:
            return SimReply(code: .operationNotSupported)
        }
    }

    /// A capture operation: the card queues the new photos like any other shot; taking them
    /// at once keeps their announcement in order with the capture's own reply.
    private mutating func shoot() {
        card.shoot(frames: burst)
        collectNewShots()
    }

    private func storageMatches(_ storage: UInt32) -> Bool {
        storage == 0xFFFF_FFFF || storage == CameraCard.storageID || storage == 0
    }

    /// GetObjectHandles' third parameter is optional; absent means "all objects".
    private func parentFilter(_ parent: UInt32, count: Int) -> UInt32 {
        count >= 3 ? parent : 0
    }

    private func transfer(handle: UInt32, offset: Int, count: Int, reportCount: Bool) -> SimReply {
        guard let object = card.object(handle), !object.isFolder else {
            return SimReply(code: .invalidObjectHandle)
        }
        let start = min(max(0, offset), object.size)
        let length = min(max(0, count), object.size - start)
        var reply = SimReply(code: .ok, parameters: reportCount ? [UInt32(truncatingIfNeeded: length)] : [])
        reply.data = .object(object.content, offset: start, count: length)
        return reply
    }

    private func storageInfo() -> [UInt8] {
        let capacity: UInt64 = 32_000_000_000
        let used = UInt64(max(0, card.usedBytes))
        let free = capacity > used ? capacity - used : 0
        return PTPStorageInfo(storageType: 4, filesystemType: 3, accessCapability: 0,
                              maxCapacity: capacity, freeSpaceInBytes: free,
                              freeSpaceInImages: UInt32(truncatingIfNeeded: free / 5_000_000),
                              storageDescription: profile.storageDescription,
                              volumeLabel: "RELAYSIM").encoded()
    }

    public static func objectInfo(_ object: SimObject) -> PTPObjectInfo {
        let date = ptpDate(object.captureDate)
        return PTPObjectInfo(
            storageID: object.storageID,
            objectFormat: PTPObjectFormat(object.format),
            protectionStatus: 0,
            compressedSize: UInt32(truncatingIfNeeded: object.size),
            // Nikon reports NEF as "undefined" with a JPEG thumbnail; clients (gphoto2 among
            // them) refuse to download an undefined object that has no thumbnail format.
            thumbFormat: PTPObjectFormat(object.format == 0x3000 ? CameraCard.formatJPEG : 0),
            parentObject: object.parent,
            associationType: object.isFolder ? PTPObjectInfo.associationGenericFolder : 0,
            filename: object.name,
            captureDate: date,
            modificationDate: date)
    }

    static func canonRecord(_ object: SimObject) -> CanonEOSEventRecord {
        if object.inMemory {
            return .requestObjectTransfer(CanonObjectAdded(
                recordType: CanonEOSEventType.requestObjectTransfer, handle: object.handle,
                format: PTPObjectFormat(object.format), size: UInt32(truncatingIfNeeded: object.size),
                filename: object.name))
        }
        return .objectAdded(CanonObjectAdded(
            recordType: CanonEOSEventType.objectAddedEx, handle: object.handle, storageID: object.storageID,
            format: PTPObjectFormat(object.format), size: UInt32(truncatingIfNeeded: object.size),
            parent: object.parent, filename: object.name))
    }

    /// `YYYYMMDDThhmmss` in UTC.
    static func ptpDate(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))"
    }
}
