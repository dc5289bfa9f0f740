import Foundation
import PTPIP
import PTPWire

/// Canon EOS bodies, PowerShots with EOS firmware, and the R line.
///
/// - Start as libgphoto2 does (camlibs/ptp2 library.c `camera_init`, config.c
///   `camera_prepare_canon_eos_capture`): SetRemoteMode, SetEventMode(1), then GetEvent until a
///   reply holds no records. EOS M and newer PowerShot SX/G bodies take remote mode 0x15 (the
///   M6 Mark II 1, some SX 0x11) and list a different DeviceInfo afterwards, so it is read again.
/// - New photos: GetEvent records ObjectAddedEx (0xC181, 0xC1A7, and 0xC1B6 on the R5 Mark II
///   over Wi-Fi) and, for captures held in camera memory, RequestObjectTransfer (0xC186, 0xC1A9,
///   0xC1B8; libgphoto2 issue 1028). A capture in memory is downloaded from the record's size and
///   format (GetObjectInfo may fail for it) and released with TransferComplete.
/// - A shot protected or rated on the body: ObjectInfoChangedEx (0xC187, 0xC1A8, 0xC1B7) and/or
///   ObjectContentChanged (0xC188); the rating is in the file's rewritten XMP (darktable issue
///   13286). The transfer button: RequestObjectTransferDT (0xC190, 0xC1AA), and
///   RequestObjectTransfer for a photo relay knows to be on the card (not a capture in memory).
/// - KeepDeviceOn (0x911D) every 10 s, so the body does not sleep in the middle of an event.
/// - Clean stop: GetEvent once to drain, SetRemoteMode(0), SetEventMode(0).
struct CanonEOSDialect: CameraDialect {
    private var interval = AdaptivePollInterval()
    private var lastKeepAlive = 0.0
    /// Exposure time the camera last reported (ShutterSpeed property), nil for bulb or unknown.
    private(set) var exposureSeconds: Double?
    /// The Tv code (0xD102) the camera last reported, the codes it allows now (its
    /// AvailListChanged record) and its AutoExposureMode (0xD105), for bracketing.
    private var shutterCode: UInt32?
    private var allowedShutterCodes: [UInt32] = []
    private var exposureMode: UInt32?

    /// GetEvent replies read at start-up at most, so that a body that reports properties on
    /// every poll cannot hold the start-up forever.
    static let startupDrainLimit = 20
    /// Seconds between KeepDeviceOn requests.
    static let keepAliveInterval = 10.0

    static func recognises(_ info: PTPDeviceInfo) -> Bool {
        CameraVendor.of(info) == .canon && (info.supports(.canonEOSGetEvent) || info.supports(.canonEOSSetRemoteMode))
    }

    var description: String { "Canon EOS events" }

    /// The remote mode a body is started in: 0x15 for EOS M and the PowerShots with EOS M-like
    /// firmware, with libgphoto2's exceptions by model; 1 for every other EOS.
    static func remoteMode(_ info: PTPDeviceInfo) -> UInt32 {
        let model = info.model
        let eosMLike =
            model.hasPrefix("Canon EOS M")
            || ((model.hasPrefix("Canon PowerShot SX") || model.hasPrefix("Canon PowerShot G")
                || model.hasPrefix("Canon Digital IXUS")) && info.supports(.canonEOSRemoteReleaseOn))
        guard eosMLike else { return 1 }
        switch model {
        case "Canon EOS M6 Mark II": return 0x1
        case "Canon PowerShot SX720 HS", "Canon PowerShot SX600 HS": return 0x11
        default: return 0x15
        }
    }

    mutating func start(_ session: CameraSession) throws(PTPIPError) -> [ObjectAnnouncement] {
        if session.supports(.canonEOSSetRemoteMode) {
            let mode = Self.remoteMode(session.deviceInfo)
            try session.perform(.canonEOSSetRemoteMode, [mode])
            if mode != 1 { try session.rereadDeviceInfo() }
        }
        guard session.supports(.canonEOSGetEvent) else { return [] }
        try session.perform(.canonEOSSetEventMode, [1])
        var announced: [ObjectAnnouncement] = []
        for _ in 0..<Self.startupDrainLimit {
            let list = try getEvent(session)
            announced += announcements(in: list)
            if list.isEmpty { break }
        }
        lastKeepAlive = session.now
        return announced
    }

    mutating func poll(_ session: CameraSession, wait: Double) throws(PTPIPError) -> CameraNews {
        guard session.supports(.canonEOSGetEvent) else { return try pushedEvents(session, wait: wait) }
        var news = try pushedEvents(session, wait: min(wait, interval.current))
        let list = try getEvent(session)
        interval.record(activity: !list.isEmpty || !news.isEmpty)
        // Protecting or rating a shot: ObjectInfoChangedEx on older firmware, ObjectContentChanged
        // on newer, some bodies both (libgphoto2 PR 261); either one is enough.
        news.merge(
            CameraNews(
                added: announcements(in: list),
                changed: list.changedObjects.map { ObjectChange(handle: $0) }
                    + list.transferButtonObjects.map { ObjectChange(handle: $0, transferRequested: true) }))
        return news
    }

    mutating func keepAlive(_ session: CameraSession, now: Double, idle: Double) throws(PTPIPError) {
        guard session.supports(.canonEOSKeepDeviceOn), now - lastKeepAlive >= Self.keepAliveInterval else { return }
        lastKeepAlive = now
        _ = try session.call(.canonEOSKeepDeviceOn)
    }

    func stop(_ session: CameraSession, timeout: Double) throws(PTPIPError) {
        // Drain what is pending (anything new is found by the next connection's listing), then
        // hand the camera back to the photographer.
        let client = session.client
        if session.supports(.canonEOSGetEvent) {
            _ = try client.transaction(.canonEOSGetEvent, dataIn: .collect(limit: CameraSession.collectLimit), timeout: timeout)
        }
        _ = try client.transaction(.canonEOSSetRemoteMode, [0], timeout: timeout)
        if session.supports(.canonEOSGetEvent) {
            _ = try client.transaction(.canonEOSSetEventMode, [0], timeout: timeout)
        }
    }

    func storageListing(_ session: CameraSession) -> PTPOperationCode? {
        guard session.supports(.getObjectHandles) else { return nil }
        return session.supports(.getStorageIDs) ? .getStorageIDs : .canonEOSGetStorageIDs
    }

    /// EOS bodies list a folder's files with GetObjectInfoEx, whose flags byte marks a protected
    /// one (bit 0x01; libgphoto2 lists such a file read-only, `ptp_list_folder_eos`).
    func isProtected(_ object: CameraObject, session: CameraSession) throws(PTPIPError) -> Bool? {
        guard session.supports(.canonEOSGetObjectInfoEx), !object.needsTransferComplete else { return nil }
        let reply = try session.call(
            .canonEOSGetObjectInfoEx, [object.info.storageID, object.info.parentObject, 0x10_0000],
            dataIn: .collect(limit: CameraSession.collectLimit))
        guard reply.code.isOK else { return nil }
        return CanonFolderEntry.parse(reply.data ?? []).first { $0.handle == object.handle }?.isProtected
    }

    func release(_ object: CameraObject, downloaded: Bool, session: CameraSession) throws(PTPIPError) {
        guard object.needsTransferComplete else { return }
        _ = try session.call(.canonEOSTransferComplete, [object.handle])
    }

    func trigger(_ session: CameraSession) -> Result<CaptureTrigger, TriggerUnavailable> {
        if session.supports(.canonEOSRemoteReleaseOn) && session.supports(.canonEOSRemoteReleaseOff) {
            return .success(.canonReleaseOnOff)
        }
        if session.supports(.canonEOSRemoteRelease) { return .success(.canonRelease) }
        return CaptureTrigger.standard(session)
    }

    private mutating func getEvent(_ session: CameraSession) throws(PTPIPError) -> CanonEOSEventList {
        let list = CanonEOSEventList.parsePrefix(try session.data(.canonEOSGetEvent))
        if let malformation = list.malformation {
            session.notices.append(
                "\(session.name) sent a malformed event record (\(malformation)); "
                    + "the rest of that reply was skipped, the session goes on")
        }
        session.powerSignals.note(canon: list.propertyValues)
        let shutter = UInt32(PTPDevicePropertyCode.canonEOSShutterSpeed.rawValue)
        let mode = UInt32(PTPDevicePropertyCode.canonEOSAutoExposureMode.rawValue)
        for record in list.records {
            switch record {
            case .propValueChanged(shutter, let value, _):
                exposureSeconds = CanonShutterSpeed.seconds(code: value)
                shutterCode = value
            case .propValueChanged(mode, let value, _):
                exposureMode = value
            case .availListChanged(shutter, let values):
                allowedShutterCodes = values
            default:
                break
            }
        }
        return list
    }

    /// The Tv codes the body allows (its 0xD102 AvailListChanged record, read at start-up) and
    /// its AutoExposureMode (libgphoto2 config.c `canon_shutterspeed`,
    /// `canon_eos_autoexposuremode`); nil before the body named its shutter speeds.
    func exposureControl(_ session: CameraSession) throws(PTPIPError) -> ExposureControl? {
        guard session.supports(.canonEOSSetDevicePropValueEx), !allowedShutterCodes.isEmpty else { return nil }
        var control = ExposureControl(
            mode: exposureMode.map(ExposureMode.canonEOS), offered: [],
            current: shutterCode.flatMap(ShutterSpeedCodes.canonSpeed))
        for code in allowedShutterCodes {
            guard let speed = ShutterSpeedCodes.canonSpeed(code: code), control.values[speed] == nil else { continue }
            control.offered.append(speed)
            control.values[speed] = code
        }
        control.offered.sort(by: >)
        return control
    }

    /// SetDevicePropValueEx (0x9110) with 12 bytes: size, 0xD102, the Tv code (libgphoto2 ptp.c
    /// `ptp_canon_eos_setdevicepropvalue`); the body confirms with a PropValueChanged record.
    func setShutterSpeed(_ speed: ShutterSpeed, _ control: ExposureControl, session: CameraSession) throws(PTPIPError)
        -> PTPResponseCode
    {
        guard let code = control.values[speed] ?? ShutterSpeedCodes.canonCode(for: speed) else { return .invalidDevicePropValue }
        var data = PTPDataWriter(capacity: 12)
        data.appendU32(12)
        data.appendU32(UInt32(PTPDevicePropertyCode.canonEOSShutterSpeed.rawValue))
        data.appendU32(code)
        return try session.call(.canonEOSSetDevicePropValueEx, dataOut: data.bytes).code
    }

    /// The speed of the body's last ShutterSpeed record: EOS bodies report a change in GetEvent,
    /// which the session polls between its steps.
    func shutterSpeed(_ session: CameraSession) throws(PTPIPError) -> ShutterSpeed? {
        shutterCode.flatMap(ShutterSpeedCodes.canonSpeed)
    }

    private func announcements(in list: CanonEOSEventList) -> [ObjectAnnouncement] {
        list.newObjects.map { object in
            var announcement = ObjectAnnouncement(handle: object.handle, needsTransferComplete: object.needsTransferComplete)
            if object.needsTransferComplete {
                // Held in camera memory: the record says what relay needs to download it.
                announcement.namedByRelay = object.filename.isEmpty
                announcement.described =
                    object.filename.isEmpty
                    ? .described(
                        handle: object.handle, kind: object.format.photoKind(fileName: ""), size: object.size,
                        namePrefix: "IMG", format: object.format)
                    : PTPObjectInfo(
                        storageID: 0, objectFormat: object.format, compressedSize: object.size,
                        filename: object.filename)
            }
            return announcement
        }
    }
}

/// Canon's shutter speed codes: 8 steps per stop, 0x38 is 1 s, smaller codes are longer
/// (0x10 is 30 s), 0x0C is bulb (libgphoto2 config.c, `canon_shutterspeed`).
enum CanonShutterSpeed {
    /// Seconds of exposure, nil for bulb and for codes outside the table's range.
    static func seconds(code: UInt32) -> Double? {
        guard (0x10...0xA0).contains(code) else { return nil }
        return pow(2, (56 - Double(code)) / 8)
    }
}
