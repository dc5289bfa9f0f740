import Foundation
import PTPWire

extension SimBody {
    /// An EOS body of the last decade over Wi-Fi (EOS Utility mode).
    static let canonEOS = canon(model: "Canon EOS R50 (relay camera-sim)", serial: "SIM0CANON0001")
    /// EOS R5 Mark II: libgphoto2 issue 1028 names the body "Canon EOS R5m2".
    static let canonR5m2 = canon(model: "Canon EOS R5m2 (relay camera-sim)", serial: "SIM0CANONR5M2")
    /// libgphoto2 recognises EOS M bodies by a model starting "Canon EOS M" (ptp-private.h
    /// is_canon_eos_m), and then sends SetRemoteMode(0x15).
    static let canonEOSM = canon(model: "Canon EOS M50 (relay camera-sim)", serial: "SIM0CANONEOSM")

    private static func canon(model: String, serial: String) -> SimBody {
        SimBody(
            vendorExtensionID: 0x0000_000B, vendorExtensionDescription: "Canon EOS simulated by relay",
            manufacturer: "Canon.Inc", model: model, deviceVersion: "3-1.0.0", serialNumber: serial,
            folderName: "100CANON", namePrefix: "IMG_", rawFormat: ("CR3", 0xB108), storageDescription: "SD",
            dataPacketSize: 0x8_0000, endsWithEmptyEndData: true)
    }
}

/// Canon EOS: photos announced by polled GetEvent (0x9116) records after SetEventMode(1);
/// shots kept in camera memory wait for TransferComplete (0x9117).
///
/// Variants, from libgphoto2 `camlibs/ptp2`:
/// - `canon-eos`: ObjectAddedEx 0xC181 / RequestObjectTransfer 0xC186 records (ptp-pack.c).
/// - `canon-r5m2`: ObjectAddedEx64LFN 0xC1B6 (name at the end, UTF-16; libgphoto2 issue 1028) and
///   RequestObjectTransfer64LFN 0xC1B8 (no name; ptp-pack.c, commit af0b35bb3); a shot in camera
///   memory has no ObjectInfo, so a client downloads it from the record's size and format.
/// - `canon-eosm`: EOS M and newer PowerShot list only standard operations and SetRemoteMode
///   until SetRemoteMode(0x15); then DeviceInfo lists the EOS set and must be read again
///   (library.c camera_init, "Setting remote mode changes device info on EOS M2").
///
/// The battery and the shots left are not device properties a client asks for: they come in
/// the GetEvent stream as PropValueChanged records, BatteryPower 0xD111 in Canon's steps and
/// AvailableShots 0xD11B (libgphoto2 ptp.h, ptp-pack.c; the recorded reply of a real body holds
/// both), each reported when it changes.
struct CanonEOSBehaviour: SimBehaviour {
    enum Records: Sendable { case classic, longFileName64 }
    /// What a shot protected or rated on the body raises (libgphoto2 PR 261: ObjectInfoChangedEx
    /// on older firmware, ObjectContentChanged on newer, some bodies both).
    enum ChangeRecords: Sendable, Equatable { case info, content, both }

    /// Canon EOS battery level property (PTP_DPC_CANON_EOS_BatteryPower).
    static let batteryPowerProperty = UInt32(PTPDevicePropertyCode.canonEOSBatteryPower.rawValue)
    static let availableShotsProperty = UInt32(PTPDevicePropertyCode.canonEOSAvailableShots.rawValue)
    static let shutterSpeedProperty = UInt32(PTPDevicePropertyCode.canonEOSShutterSpeed.rawValue)
    /// The SetRemoteMode value libgphoto2 sends to EOS M bodies.
    static let eosMRemoteMode: UInt32 = 0x15

    let records: Records
    /// EOS M: the EOS operations stay hidden until SetRemoteMode(0x15).
    let needsRemoteMode: Bool
    /// GetObjectInfo on a shot in camera memory answers InvalidObjectHandle.
    let memoryObjectInfoFails: Bool
    /// PropValueChanged records added to every GetEvent reply (a body that reports its
    /// properties on every poll).
    let propertyFlood: Int
    let changeRecords: ChangeRecords
    /// GetObjectInfo reports a protection (else only GetObjectInfoEx's flags do).
    let protectionInObjectInfo: Bool
    /// GetEvent reports only the terminator until SetEventMode(1).
    private(set) var eventModeOn = false
    private(set) var remoteMode: UInt32 = 0
    /// The first GetEvent after SetEventMode(1) is the recorded property dump.
    private var sentPropertyDump = false
    /// What the client was last told (in the first reply, then in changes).
    private var reportedBatteryStep: UInt32 = 0
    private var reportedShots: UInt32 = 0
    /// `changeProperty` asked for the battery to be reported again.
    private var batteryReportDue = false
    /// The exposure changes this session was told of.
    private var reportedExposureChanges = 0

    init(
        records: Records = .classic, needsRemoteMode: Bool = false, memoryObjectInfoFails: Bool = false,
        propertyFlood: Int = 0, changeRecords: ChangeRecords = .both, protectionInObjectInfo: Bool = true
    ) {
        self.changeRecords = changeRecords
        self.protectionInObjectInfo = protectionInObjectInfo
        self.records = records
        self.needsRemoteMode = needsRemoteMode
        self.memoryObjectInfoFails = memoryObjectInfoFails
        self.propertyFlood = propertyFlood
    }

    private static let eosOperations: [PTPOperationCode] = [
        .canonEOSGetStorageIDs, .canonEOSGetStorageInfo, .canonEOSRemoteRelease, .canonEOSSetDevicePropValueEx,
        .canonEOSSetRemoteMode, .canonEOSSetEventMode, .canonEOSGetEvent, .canonEOSTransferComplete, .canonEOSGetObjectInfoEx,
        .canonEOSKeepDeviceOn, .canonEOSRemoteReleaseOn, .canonEOSRemoteReleaseOff,
    ]

    /// Whether the EOS operations are available (always, but on EOS M only after SetRemoteMode(0x15)).
    var unlocked: Bool { !needsRemoteMode || remoteMode == Self.eosMRemoteMode }

    func operations(camera: SimCamera) -> [PTPOperationCode] {
        unlocked ? standardOperations + Self.eosOperations : standardOperations + [.canonEOSSetRemoteMode]
    }

    var events: [PTPEventCode] {
        switch records {
        case .classic:
            return [
                .objectAdded, PTPEventCode(0xC181), PTPEventCode(0xC186), PTPEventCode(0xC187), PTPEventCode(0xC188), PTPEventCode(0xC189),
            ]
        case .longFileName64:
            return [
                .objectAdded, PTPEventCode(0xC1B6), PTPEventCode(0xC1B7), PTPEventCode(0xC188), PTPEventCode(0xC1B8), PTPEventCode(0xC189),
            ]
        }
    }

    /// Reports the battery step again with the next GetEvent, as bodies do now and then.
    mutating func changeProperty() {
        batteryReportDue = true
    }

    mutating func respond(to request: PTPOperationRequest, dataOut: [UInt8]?, camera: inout SimCamera) -> SimReply? {
        let first = request.parameters.first ?? 0
        switch request.code {
        case .closeSession:
            eventModeOn = false
            remoteMode = 0
            return nil
        case .getObjectInfo:
            guard let object = camera.card.object(first) else { return nil }
            if memoryObjectInfoFails && object.inMemory { return SimReply(code: .invalidObjectHandle) }
            guard !protectionInObjectInfo else { return nil }
            var info = SimResponder.objectInfo(object)
            info.protectionStatus = 0
            return SimReply(code: .ok, data: info.encoded())
        case .canonEOSGetObjectInfoEx:
            // A folder's files with their flags (bit 0x01: protected), as EOS bodies list them.
            let folder = request.parameters.count > 1 ? request.parameters[1] : 0
            let entries = camera.card.handles(format: 0, parent: folder).compactMap { camera.card.object($0) }.map { object in
                CanonFolderEntry(
                    handle: object.handle, storageID: object.storageID, format: object.format, flags: object.isProtected ? 0x01 : 0,
                    size: UInt32(truncatingIfNeeded: object.size), name: object.name)
            }
            return SimReply(code: .ok, data: CanonFolderEntry.encode(entries))
        case .canonEOSGetStorageIDs:
            return camera.storageIDs()
        case .canonEOSGetStorageInfo:
            return camera.storageInfo()
        case .canonEOSSetRemoteMode:
            remoteMode = first
            return SimReply(code: .ok)
        case .canonEOSSetEventMode:
            eventModeOn = first != 0
            return SimReply(code: .ok)
        case .canonEOSGetEvent:
            return SimReply(code: .ok, data: getEvent(camera: &camera))
        case .canonEOSTransferComplete:
            if let object = camera.card.object(first), object.inMemory { _ = camera.card.delete(object.handle) }
            return SimReply(code: .ok)
        case .canonEOSRemoteRelease:
            camera.shoot()
            return SimReply(code: .ok)
        case .canonEOSRemoteReleaseOn:
            // 1 = half press (focus only), 2 = full press, 3 = both: a full press takes the shot.
            if first & 2 != 0 { camera.shoot() }
            return SimReply(code: .ok)
        case .canonEOSRemoteReleaseOff, .canonEOSKeepDeviceOn:
            return SimReply(code: .ok)
        case .canonEOSSetDevicePropValueEx:
            // Data-out (size, property, value): the shutter speed is set as the body's exposure;
            // other properties are accepted, as a body does for those clients set (gphoto2 sets
            // the capture destination).
            guard let data = dataOut, data.count >= 8 else { return SimReply(code: .invalidParameter) }
            var reader = PTPDataReader(data)
            _ = try? reader.readU32()
            guard (try? reader.readU32()) == Self.shutterSpeedProperty else { return SimReply(code: .ok) }
            return setShutterSpeed(code: (try? reader.readU32()) ?? 0, camera: camera)
        default:
            return nil
        }
    }

    /// A new Tv code (libgphoto2 config.c `canon_shutterspeed`): refused where the dial picks
    /// the speed, unknown codes refused; reported as PropValueChanged with the next GetEvent.
    private func setShutterSpeed(code: UInt32, camera: SimCamera) -> SimReply {
        let exposure = camera.card.exposure
        if let refusal = exposure.refusal { return SimReply(code: refusal) }
        guard let speed = ShutterSpeedCodes.canonSpeed(code: code), exposure.set(speed) else {
            return SimReply(code: .invalidDevicePropValue)
        }
        return SimReply(code: .ok)
    }

    private mutating func getEvent(camera: inout SimCamera) -> [UInt8] {
        guard eventModeOn else { return CanonEOSEventList.encode([]) }
        if !sentPropertyDump {
            sentPropertyDump = true
            reportedBatteryStep = BatteryLevel.canonEOSStep(percent: camera.card.battery.percent)
            reportedShots = camera.card.freeSpace.shots
            reportedExposureChanges = camera.card.exposure.changeCount
            return CanonEOSRecordedEvents.firstGetEvent(
                batteryStep: reportedBatteryStep, availableShots: reportedShots,
                shutterSpeed: ShutterSpeedCodes.canonCode(for: camera.card.exposure.current),
                exposureMode: camera.card.exposure.mode.canonEOSValue)
        }
        let flood = (0..<propertyFlood).map { index in
            CanonEOSEventRecord.propValueChanged(property: 0xD101 + UInt32(index % 64), value: UInt32(index), raw: [])
        }
        let objects = camera.undelivered
        camera.undelivered.removeAll()
        let record = records == .classic ? Self.classicRecord : Self.longFileNameRecord
        let changed = camera.changedUndelivered.flatMap(changeRecords(for:))
        camera.changedUndelivered.removeAll()
        let transfers = camera.card.takeTransferRequests().compactMap { camera.card.object($0) }.map(transferRecord)
        return CanonEOSEventList.encode(flood + objects.map(record) + changed + transfers + resourceChanges(camera))
    }

    /// The transfer button on a photo of the card: RequestObjectTransfer as for a capture in
    /// memory (0xC186 with its name) on canon-eos and canon-eosm; RequestObjectTransferDT64
    /// (0xC1AA, the handle alone) on canon-r5m2, so that both records are exercised (which one a
    /// given body sends is not public: libgphoto2's ptp.h names both).
    private func transferRecord(_ object: SimObject) -> CanonEOSEventRecord {
        guard records == .classic else {
            return .objectChanged(type: CanonEOSEventType.requestObjectTransferDT64, handle: object.handle)
        }
        return .requestObjectTransfer(
            CanonObjectAdded(
                recordType: CanonEOSEventType.requestObjectTransfer, handle: object.handle, format: PTPObjectFormat(object.format),
                size: UInt32(truncatingIfNeeded: object.size), filename: object.name))
    }

    /// The records of a file protected or rated on the body.
    private func changeRecords(for handle: UInt32) -> [CanonEOSEventRecord] {
        let info = records == .classic ? CanonEOSEventType.objectInfoChangedEx : CanonEOSEventType.objectInfoChangedEx64LFN
        let infoRecord = CanonEOSEventRecord.objectChanged(type: info, handle: handle)
        let contentRecord = CanonEOSEventRecord.objectChanged(type: CanonEOSEventType.objectContentChanged, handle: handle)
        switch changeRecords {
        case .info: return [infoRecord]
        case .content: return [contentRecord]
        case .both: return [infoRecord, contentRecord]
        }
    }

    /// BatteryPower and AvailableShots records for what changed since the client was last told.
    private mutating func resourceChanges(_ camera: SimCamera) -> [CanonEOSEventRecord] {
        var records: [CanonEOSEventRecord] = []
        let step = BatteryLevel.canonEOSStep(percent: camera.card.battery.percent)
        if step != reportedBatteryStep || batteryReportDue {
            reportedBatteryStep = step
            batteryReportDue = false
            records.append(.propValueChanged(property: Self.batteryPowerProperty, value: step, raw: []))
        }
        if camera.card.exposure.changeCount != reportedExposureChanges,
            let code = ShutterSpeedCodes.canonCode(for: camera.card.exposure.current)
        {
            reportedExposureChanges = camera.card.exposure.changeCount
            records.append(.propValueChanged(property: Self.shutterSpeedProperty, value: code, raw: []))
        }
        let shots = camera.card.freeSpace.shots
        if shots != reportedShots {
            reportedShots = shots
            records.append(.propValueChanged(property: Self.availableShotsProperty, value: shots, raw: []))
        }
        return records
    }

    static func classicRecord(_ object: SimObject) -> CanonEOSEventRecord {
        if object.inMemory {
            return .requestObjectTransfer(
                CanonObjectAdded(
                    recordType: CanonEOSEventType.requestObjectTransfer, handle: object.handle,
                    format: PTPObjectFormat(object.format), size: UInt32(truncatingIfNeeded: object.size),
                    filename: object.name))
        }
        return .objectAdded(
            CanonObjectAdded(
                recordType: CanonEOSEventType.objectAddedEx, handle: object.handle, storageID: object.storageID,
                format: PTPObjectFormat(object.format), size: UInt32(truncatingIfNeeded: object.size),
                parent: object.parent, filename: object.name))
    }

    /// R5 Mark II: 0xC1B8 (no name) for a shot in camera memory, 0xC1B6 (name at the end) on the card.
    static func longFileNameRecord(_ object: SimObject) -> CanonEOSEventRecord {
        if object.inMemory {
            return .requestObjectTransfer(
                CanonObjectAdded(
                    recordType: CanonEOSEventType.requestObjectTransfer64LFN, handle: object.handle,
                    format: PTPObjectFormat(object.format), size: UInt32(truncatingIfNeeded: object.size), filename: ""))
        }
        return .objectAdded(
            CanonObjectAdded(
                recordType: CanonEOSEventType.objectAddedEx64LFN, handle: object.handle, storageID: object.storageID,
                format: PTPObjectFormat(object.format), size: UInt32(truncatingIfNeeded: object.size),
                parent: object.parent, filename: object.name))
    }
}
