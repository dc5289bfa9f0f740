import PTPWire

extension SimBody {
    /// A Sony Alpha in PC Remote over Wi-Fi: over PTP/IP Sony reports the MTP vendor id
    /// 0xFFFFFFFF and libgphoto2 picks the Sony dialect from the exact manufacturer string
    /// "Sony Corporation" (library.c fixup_cached_deviceinfo). The model is an ILCE-7M3:
    /// libgphoto2 sends 0x9280 to every Sony but the ILCE-7M4, which locks up on it (PR 782).
    static let sony = SimBody(
        vendorExtensionID: 0xFFFF_FFFF, vendorExtensionDescription: "microsoft.com: 1.0",
        manufacturer: "Sony Corporation", model: "ILCE-7M3 (relay camera-sim)", deviceVersion: "3.00",
        serialNumber: "00000000000000000000SIM0SONY001", folderName: "100MSDCF", namePrefix: "DSC0",
        rawFormat: ("ARW", 0xB101), storageDescription: "Memory card", dataPacketSize: 0x1_0000)
}

/// Sony in PC Remote over PTP/IP. Facts from libgphoto2 `camlibs/ptp2` (library.c, ptp.c),
/// its issues 16, 900, 1218, 1219 and PR 1240, and rocc `SonyPTPIPCamera.swift`:
///
/// - Until the SDIO handshake is done (SDIOConnect 0x9201 with 1, then 2, GetSDIOExtDeviceInfo
///   0x9202, SDIOConnect with 3) only OpenSession, GetDeviceInfo and CloseSession are
///   answered; any other operation makes the body stop answering for the rest of the session
///   (switchable: `handshakeRequired`).
/// - The card is not browsable: GetStorageIDs, GetStorageInfo, GetNumObjects and
///   GetObjectHandles answer StoreNotAvailable.
/// - A new photo waits in camera memory at handle 0xFFFFC001, announced by event 0xC201 and by
///   property 0xD215 ("objects in memory": 0x8000 + count). Once it has been read whole (the
///   client's next operation shows it got it) it is gone and the next one appears at the same
///   handle with another 0xC201. DeleteObject is not supported.
/// - 0x9280 with param 4 and data (2, 2, 0, 0, 1, 1) starts a transfer; with data (0, 5, 0, 0)
///   the body shuts down after the session, which ends its activation (issues 16, 1218).
/// - The battery is BatteryLevel 0xD218 (INT8, -1 unknown; libgphoto2 ptp.h, config.c), listed
///   in the extended DeviceInfo. Real bodies hand their properties out in one
///   SDIO_GetAllExtDevicePropInfo (0x9209) blob; this body does not list 0x9209, so clients
///   read 0xD218 with the standard GetDevicePropDesc/Value, as libgphoto2 does then (ptp.c
///   `ptp_generic_getdevicepropdesc`). So are the shutter speed 0xD20D and the dial 0x500E; a
///   new speed is set with SetControlDeviceA on 0xD20D (`SimStandardExposure.sony`).
struct SonyBehaviour: SimBehaviour {
    /// Where a photo in camera memory is read.
    static let memoryHandle: UInt32 = 0xFFFF_C001
    /// PTP_DPC_SONY_ObjectInMemory (u16).
    static let objectInMemoryProperty: UInt32 = 0xD215
    static let batteryProperty = UInt32(PTPDevicePropertyCode.sonyBatteryLevel.rawValue)
    /// PTP_DPC_SONY_PriorityMode, which gphoto2 sets after the handshake.
    static let priorityModeProperty: UInt16 = 0xD25A

    enum Handshake: Int, Sendable, Comparable {
        case none, connected1, connected2, extDeviceInfo, done
        static func < (a: Handshake, b: Handshake) -> Bool { a.rawValue < b.rawValue }
    }

    let handshakeRequired: Bool
    private(set) var handshake = Handshake.none
    /// Set when an operation came before the handshake: the body answers nothing any more.
    private(set) var stalled = false
    /// Whether 0x9280 asked the body to shut down after this session.
    private(set) var shutdownRequested = false
    /// The photo read whole by the last operation, released when the next operation arrives.
    private var readWhole: UInt32?
    /// The in-memory photo last announced with 0xC201.
    private var announced: UInt32?
    /// The shutter speed changes this session was told of.
    private var exposureChangesReported = 0

    /// The SDIO protocol the body speaks: 300, or 200 (speeds only in steps).
    let sdioVersion: UInt16

    /// Properties only in the 0x9209 reply, as real bodies give them.
    let allPropertiesAtOnce: Bool

    init(handshakeRequired: Bool = true, sdioVersion: UInt16 = 300, allPropertiesAtOnce: Bool = false) {
        self.handshakeRequired = handshakeRequired
        self.sdioVersion = sdioVersion
        self.allPropertiesAtOnce = allPropertiesAtOnce
    }

    func operations(camera: SimCamera) -> [PTPOperationCode] {
        [
            .getDeviceInfo, .openSession, .closeSession, .getStorageIDs, .getStorageInfo, .getNumObjects,
            .getObjectHandles, .getObjectInfo, .getObject, .getPartialObject, .getDevicePropDesc, .getDevicePropValue,
            .sonySDIOConnect, .sonyGetSDIOExtDeviceInfo, .sonySetControlDeviceA, .sonySetControlDeviceB,
            .sonyPTPIPTransferMode, .sonyPTPIPTransferModeResult,
        ] + (allPropertiesAtOnce ? [.sonyGetAllExtDevicePropInfo] : [])
    }

    /// The 0x9209 reply: objects in memory, the battery, the shutter speed and the dial.
    private func allProperties(_ camera: SimCamera) -> [UInt8] {
        var list: [UInt16: PTPDevicePropDesc] = [:]
        for property in SimStandardExposure.sony.properties {
            list[property.rawValue] = SimStandardExposure.sony.description(property, exposure: camera.card.exposure)
        }
        list[PTPDevicePropertyCode.sonyBatteryLevel.rawValue] = SimBatteryProperty.description(
            .sonyBatteryLevel, percent: camera.card.battery.percent)
        list[UInt16(Self.objectInMemoryProperty)] = PTPDevicePropDesc(
            property: PTPDevicePropertyCode(UInt16(Self.objectInMemoryProperty)), dataType: .uint16,
            current: Int64(objectsInMemory(camera)),
            form: .none)
        return SonyPropertyList(properties: list).encoded()
    }

    var events: [PTPEventCode] { [.objectAdded, .sonyObjectAdded, PTPEventCode(0xC203)] }

    mutating func screen(_ request: PTPOperationRequest, camera: inout SimCamera) -> SimReply? {
        if stalled { return .silence }
        if let handle = readWhole {
            readWhole = nil
            _ = camera.card.delete(handle)
        }
        guard handshakeRequired, handshake < .done else { return nil }
        switch request.code {
        case .getDeviceInfo, .openSession, .closeSession, .sonySDIOConnect, .sonyGetSDIOExtDeviceInfo:
            return nil
        default:
            stalled = true
            return .silence
        }
    }

    mutating func respond(to request: PTPOperationRequest, dataOut: [UInt8]?, camera: inout SimCamera) -> SimReply? {
        let p = request.parameters
        func param(_ index: Int) -> UInt32 { index < p.count ? p[index] : 0 }
        let exposureProperty = SimStandardExposure.sony.properties.contains { UInt32($0.rawValue) == param(0) }
        switch request.code {
        case .sonySDIOConnect:
            switch (param(0), handshake) {
            case (1, .none): handshake = .connected1
            case (2, .connected1): handshake = .connected2
            case (3, .extDeviceInfo): handshake = .done
            default: break
            }
            return SimReply(code: .ok, data: [UInt8](repeating: 0, count: 8))
        case .sonyGetSDIOExtDeviceInfo:
            if handshake == .connected2 { handshake = .extDeviceInfo }
            var writer = PTPDataWriter()
            writer.appendU16(param(0) >= 300 ? sdioVersion : 200)
            writer.appendArrayU16(
                [
                    UInt16(Self.objectInMemoryProperty), Self.priorityModeProperty,
                    PTPDevicePropertyCode.sonyBatteryLevel.rawValue,
                ] + SimStandardExposure.sony.properties.map(\.rawValue))
            writer.appendArrayU16([])
            return SimReply(code: .ok, data: writer.bytes)
        case .sonySetControlDeviceA where sdioVersion < 300 && exposureProperty:
            // Protocol 2.00: taken, and nothing changes (libgphoto2 config.c: "Docs say to call
            // SDIO_ControlDevice, but this doesn't work on A7R4").
            return SimReply(code: .ok)
        case .sonySetControlDeviceA:
            if let reply = SimStandardExposure.sony.respond(
                to: request, dataOut: dataOut, exposure: camera.card.exposure, setter: .sonySetControlDeviceA)
            {
                return reply
            }
            return SimReply(code: dataOut == nil ? .invalidParameter : .ok)
        case .sonySetControlDeviceB where param(0) == UInt32(PTPDevicePropertyCode.sonyShutterSpeed.rawValue):
            // A step of the speed dial: one signed byte, positive towards shorter exposures, as
            // libgphoto2 steps a body of protocol 2.00 (config.c `_put_Sony_ShutterSpeedMode2`).
            guard let step = dataOut?.first.map({ Int(Int8(bitPattern: $0)) }) else { return SimReply(code: .invalidParameter) }
            let exposure = camera.card.exposure
            if let refusal = exposure.refusal { return SimReply(code: refusal) }
            let index = exposure.offered.firstIndex(of: exposure.current) ?? 0
            _ = exposure.set(exposure.offered[max(0, min(exposure.offered.count - 1, index + step))])
            return SimReply(code: .ok)
        case .sonySetControlDeviceB:
            // The full press (0xD2C2 down) takes the shot, into camera memory.
            guard let data = dataOut, let value = try? PTPDevicePropDesc.decodeValue(data, as: .uint16) else {
                return SimReply(code: .invalidParameter)
            }
            if param(0) == UInt32(PTPDevicePropertyCode.sonyShutterRelease.rawValue) && value == 2 { camera.shoot() }
            return SimReply(code: .ok)
        case .sonyPTPIPTransferMode:
            var reader = PTPDataReader(dataOut ?? [])
            _ = try? reader.readU32()
            if (try? reader.readU32()) == 5 { shutdownRequested = true }
            var reply = SimReply(code: .ok)
            reply.endsActivation = shutdownRequested
            return reply
        case .sonyPTPIPTransferModeResult:
            return SimReply(code: .ok, data: [UInt8](repeating: 0, count: 16))
        case .getStorageIDs, .getStorageInfo, .getNumObjects, .getObjectHandles:
            return SimReply(code: .storeNotAvailable)
        case .getObjectInfo:
            guard param(0) == Self.memoryHandle, let head = head(camera) else { return SimReply(code: .invalidObjectHandle) }
            return SimReply(code: .ok, data: SimResponder.objectInfo(head).encoded())
        case .getObject, .getPartialObject:
            guard param(0) == Self.memoryHandle, let head = head(camera) else { return SimReply(code: .invalidObjectHandle) }
            let partial = request.code == .getPartialObject
            let offset = partial ? Int(param(1)) : 0
            let count = partial ? Int(param(2)) : Int.max
            let reply = SimCamera.transfer(head, offset: offset, count: count) { partial ? [UInt32(truncatingIfNeeded: $0)] : [] }
            if offset + (reply.data?.count ?? 0) >= head.size { readWhole = head.handle }
            return reply
        case .sonyGetAllExtDevicePropInfo:
            return SimReply(code: .ok, data: allProperties(camera))
        case .getDevicePropValue where exposureProperty && allPropertiesAtOnce,
            .getDevicePropDesc where exposureProperty && allPropertiesAtOnce:
            return SimReply(code: .devicePropNotSupported)
        case .getDevicePropValue where exposureProperty, .getDevicePropDesc where exposureProperty:
            return SimStandardExposure.sony.respond(
                to: request, dataOut: dataOut, exposure: camera.card.exposure, setter: .sonySetControlDeviceA)
        case .getDevicePropValue where param(0) == Self.batteryProperty, .getDevicePropDesc where param(0) == Self.batteryProperty:
            return SimBatteryProperty.respond(to: request, property: .sonyBatteryLevel, camera: camera)
        case .getDevicePropValue:
            guard param(0) == Self.objectInMemoryProperty else { return SimReply(code: .devicePropNotSupported) }
            var writer = PTPDataWriter(capacity: 2)
            writer.appendU16(objectsInMemory(camera))
            return SimReply(code: .ok, data: writer.bytes)
        case .getDevicePropDesc:
            guard param(0) == Self.objectInMemoryProperty else { return SimReply(code: .devicePropNotSupported) }
            var writer = PTPDataWriter(capacity: 12)
            writer.appendU16(UInt16(Self.objectInMemoryProperty))
            writer.appendU16(0x0004)  // u16
            writer.appendU8(0)  // read-only
            writer.appendU16(0)  // factory default
            writer.appendU16(objectsInMemory(camera))
            writer.appendU8(0)  // no form
            return SimReply(code: .ok, data: writer.bytes)
        default:
            return nil
        }
    }

    /// 0xC201 at 0xFFFFC001 each time a new photo is at the head of camera memory, and 0xC203
    /// (DevicePropChanged, param the property) when the shutter speed changed (libgphoto2 issue
    /// 180 log: `code=0xC203 p1=0xD21F`).
    mutating func takePushEvents(camera: inout SimCamera) -> [PTPEvent] {
        camera.undelivered.removeAll()
        guard camera.sessionOpen, !stalled, !handshakeRequired || handshake == .done else { return [] }
        var events: [PTPEvent] = []
        if camera.card.exposure.changeCount != exposureChangesReported {
            exposureChangesReported = camera.card.exposure.changeCount
            events.append(PTPEvent(code: PTPEventCode(0xC203), parameters: [UInt32(PTPDevicePropertyCode.sonyShutterSpeed.rawValue)]))
        }
        guard let head = head(camera), head.handle != announced, head.handle != readWhole else { return events }
        announced = head.handle
        return events + [PTPEvent(code: .sonyObjectAdded, parameters: [Self.memoryHandle])]
    }

    /// The photo now at 0xFFFFC001: the oldest one in camera memory.
    private func head(_ camera: SimCamera) -> SimObject? {
        camera.card.memoryObjects().first { $0.handle != readWhole }
    }

    /// 0xD215: 0x8000 plus the count when a photo is ready, else 0.
    private func objectsInMemory(_ camera: SimCamera) -> UInt16 {
        let count = camera.card.memoryObjects().count
        return count == 0 ? 0 : 0x8000 | UInt16(min(count, 0x7FFF))
    }
}
