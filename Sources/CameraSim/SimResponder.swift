import Foundation
import PTPWire
import SocketIO

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
        case .object(let content, let offset, _): return try content.read(offset: offset + position, count: length)
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
    /// The camera sends nothing back, now or later in this session (a Sony given an operation
    /// before its handshake): the client can only time out.
    public var stopsAnswering = false
    /// The body shuts down once this session ends (Sony 0x9280 "shut down"): no further
    /// session until it is activated again.
    public var endsActivation = false

    /// The answer of a body that has stopped answering.
    static let silence: SimReply = {
        var reply = SimReply(code: .undefined)
        reply.stopsAnswering = true
        return reply
    }()

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
/// data the client sent with it) it decides the reply. Standard PTP is answered here and by
/// `SimCamera`; what a vendor family does differently is its `SimBehaviour`. The session loop
/// does the sockets and the faults; this part is tested directly.
public struct SimResponder: Sendable {
    public let profile: SimProfile
    public private(set) var camera: SimCamera
    var behaviour: any SimBehaviour

    public var card: CameraCard { camera.card }
    public var burst: Int { camera.burst }
    public var sessionOpen: Bool { camera.sessionOpen }

    public init(
        profile: SimProfile, card: CameraCard, burst: Int, propertyFlood: Int = 0, remoteCapture: Bool = true,
        quirks: SimQuirks = SimQuirks(), clock: @escaping @Sendable () -> Double = { SocketClock.now() }
    ) {
        self.profile = profile
        camera = SimCamera(card: card, body: profile.body, burst: burst, remoteCapture: remoteCapture, clock: clock)
        behaviour = profile.makeBehaviour(propertyFlood: propertyFlood, quirks: quirks)
    }

    /// Whether `request` fires the shutter (a Canon half press does not).
    public static func isShutterRelease(_ request: PTPOperationRequest) -> Bool {
        switch request.code {
        case .initiateCapture, .canonEOSRemoteRelease: return true
        case .canonEOSRemoteReleaseOn: return (request.parameters.first ?? 0) & 2 != 0
        default: return false
        }
    }

    /// A property changed on the body (the battery level, now and then): reported the way the
    /// family reports properties (Canon: the next GetEvent; others ignore it).
    public mutating func changeProperty() {
        behaviour.changeProperty()
    }

    // MARK: - DeviceInfo

    /// The operations that fire the shutter.
    static let captureOperations: Set<PTPOperationCode> = [
        .initiateCapture, .canonEOSRemoteRelease, .canonEOSRemoteReleaseOn, .canonEOSRemoteReleaseOff,
        .sonySetControlDeviceB,
    ]

    /// Operations listed in DeviceInfo now: gphoto2 decides what to call from this list, so it
    /// holds exactly what this body answers.
    public func operations() -> [UInt16] {
        behaviour.operations(camera: camera)
            .filter { camera.remoteCapture || !Self.captureOperations.contains($0) }
            .map(\.rawValue)
    }

    /// The operations a fresh session of `profile` lists.
    public static func operations(for profile: SimProfile, remoteCapture: Bool = true) -> [UInt16] {
        var options = SimOptions()
        options.profile = profile
        options.initialPhotos = 0
        guard let card = try? CameraCard(options: options) else { return [] }
        return SimResponder(profile: profile, card: card, burst: 1, remoteCapture: remoteCapture).operations()
    }

    public func deviceInfo() -> PTPDeviceInfo {
        let body = camera.body
        return PTPDeviceInfo(
            standardVersion: 100,
            vendorExtensionID: PTPVendorExtension(body.vendorExtensionID),
            vendorExtensionVersion: body.vendorExtensionVersion,
            vendorExtensionDescription: body.vendorExtensionDescription,
            functionalMode: 0,
            operationsSupported: operations(),
            eventsSupported: behaviour.events.map(\.rawValue),
            devicePropertiesSupported: behaviour.properties.map(\.rawValue),
            captureFormats: [CameraCard.formatJPEG],
            imageFormats: [CameraCard.formatAssociation, CameraCard.formatJPEG, body.rawFormat.formatCode],
            manufacturer: body.manufacturer,
            model: body.model,
            deviceVersion: body.deviceVersion,
            serialNumber: body.serialNumber)
    }

    // MARK: - Operations

    /// Moves photos shot since the last call into this session's undelivered list; called by
    /// the session loop between operations.
    public mutating func collectNewShots() {
        camera.collectNewShots()
    }

    /// Events to push now on the event channel, each once.
    public mutating func takePushEvents() -> [PTPEvent] {
        behaviour.takePushEvents(camera: &camera)
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
        if let screened = behaviour.screen(request, camera: &camera) { return screened }
        if code == .getDeviceInfo {
            return SimReply(code: .ok, data: deviceInfo().encoded())
        }
        if code == .openSession {
            if camera.sessionOpen { return SimReply(code: .sessionAlreadyOpen, parameters: [param(0)]) }
            guard param(0) != 0 else { return SimReply(code: .invalidParameter) }
            camera.sessionOpen = true
            return SimReply(code: .ok)
        }
        guard operations().contains(code.rawValue) else { return SimReply(code: .operationNotSupported) }
        guard camera.sessionOpen else { return SimReply(code: .sessionNotOpen) }
        if let answer = behaviour.respond(to: request, dataOut: dataOut, camera: &camera) { return answer }
        switch code {
        case .closeSession:
            camera.sessionOpen = false
            return SimReply(code: .ok)
        case .getStorageIDs:
            return camera.storageIDs()
        case .getStorageInfo:
            return param(0) == CameraCard.storageID ? camera.storageInfo() : SimReply(code: .invalidStorageID)
        case .getNumObjects:
            guard camera.storageMatches(param(0)) else { return SimReply(code: .invalidStorageID) }
            let count = card.handles(format: UInt16(truncatingIfNeeded: param(1)), parent: parentFilter(param(2), count: p.count)).count
            return SimReply(code: .ok, parameters: [UInt32(truncatingIfNeeded: count)])
        case .getObjectHandles:
            guard camera.storageMatches(param(0)) else { return SimReply(code: .invalidStorageID) }
            var writer = PTPDataWriter()
            writer.appendArrayU32(
                card.handles(
                    format: UInt16(truncatingIfNeeded: param(1)),
                    parent: parentFilter(param(2), count: p.count)))
            return SimReply(code: .ok, data: writer.bytes)
        case .getObjectInfo:
            return camera.objectInfo(param(0))
        case .getObject:
            return camera.transfer(handle: param(0), offset: 0, count: Int.max, reportCount: false)
        case .getPartialObject:
            return camera.transfer(handle: param(0), offset: Int(param(1)), count: Int(param(2)), reportCount: true)
        case .deleteObject:
            return SimReply(code: card.delete(param(0)) ? .ok : .invalidObjectHandle)
        default:
            return SimReply(code: .operationNotSupported)
        }
    }

    /// GetObjectHandles' third parameter is optional; absent means "all objects".
    private func parentFilter(_ parent: UInt32, count: Int) -> UInt32 {
        count >= 3 ? parent : 0
    }

    public static func objectInfo(_ object: SimObject) -> PTPObjectInfo {
        let date = ptpDate(object.captureDate)
        return PTPObjectInfo(
            storageID: object.storageID,
            objectFormat: PTPObjectFormat(object.format),
            protectionStatus: object.isProtected ? 0x0001 : 0,
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

    /// `YYYYMMDDThhmmss` in UTC.
    static func ptpDate(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return
            "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))"
    }
}
