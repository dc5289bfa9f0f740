import PTPWire

extension SimBody {
    /// A Nikon DSLR over Wi-Fi (its own vendor extension id).
    static let nikon = SimBody(
        vendorExtensionID: 0x0000_000A, vendorExtensionDescription: "Nikon PTP Extensions (simulated by relay)",
        manufacturer: "Nikon Corporation", model: "Z 6 (relay camera-sim)", deviceVersion: "V1.00",
        serialNumber: "SIM0NIKON0001", folderName: "100NCZ_6", namePrefix: "DSC_",
        rawFormat: ("NEF", 0x3000),  // Nikon bodies report NEF as "undefined"
        storageDescription: "SD card", dataPacketSize: nil)

    /// A Nikon Z over PTP/IP, as the Z 8 DeviceInfo in libgphoto2 issue 1135 shows it: the MTP
    /// vendor id 0xFFFFFFFF (version 110, "Microsoft.com/DeviceServices: 1.0"), so only the
    /// manufacturer says Nikon; model "Z 8", device version "V3.00".
    static let nikonZ = SimBody(
        vendorExtensionID: 0xFFFF_FFFF, vendorExtensionVersion: 110,
        vendorExtensionDescription: "Microsoft.com/DeviceServices: 1.0",
        manufacturer: "Nikon Corporation", model: "Z 8 (relay camera-sim)", deviceVersion: "V3.00",
        serialNumber: "SIM0NIKONZ8001", folderName: "100NCZ_8", namePrefix: "DSC_",
        rawFormat: ("NEF", 0x3000), storageDescription: "SD card", dataPacketSize: nil)
}

/// Nikon: photos announced by polled GetEvent (0x90C7) or GetEventEx (0x941C); the result of
/// InitiateCapture also comes on the event channel (gphoto2 waits there after it).
///
/// Quirks, each switchable:
/// - `objectInfoBusySeconds`: GetObjectInfo answers GeneralError for this long after a photo
///   is announced (airnef retries it for 5 s: a body is still writing the file).
/// - `computerMode` (`nikon-z`): in "connect to computer" mode GetObjectInfo, GetObject and
///   GetPartialObject answer AccessDenied, while GetPartialObjectEx (0x9431, 64-bit offsets)
///   and GetObjectSize (0x9421, a u64 in the data) work (libgphoto2 issue 976; ptp.h). The
///   body then gives no name or format: a client names the file and tells the format by its
///   first bytes. A Z also pushes ObjectAdded on the event channel.
///
/// The battery is the standard BatteryLevel 0x5001 read with GetDevicePropValue; a change comes
/// as DevicePropChanged in the GetEvent list (libgphoto2 config.c reads Nikon's level through
/// the standard property). The shutter speed is the standard ExposureTime 0x500D and the dial
/// ExposureProgramMode 0x500E (`SimStandardExposure`); a new speed is DevicePropChanged too.
struct NikonBehaviour: SimBehaviour {
    let isZ: Bool
    let computerMode: Bool
    let objectInfoBusySeconds: Double
    /// When each photo was first announced, for the GeneralError window.
    private var announcedAt: [UInt32: Double] = [:]
    /// Z: photos already pushed on the event channel (they stay queued for GetEvent too).
    private var pushed: Set<UInt32> = []
    private var battery = SimBatteryReport()
    /// The exposure changes this session was told of.
    private var exposureChangesReported = 0

    init(isZ: Bool = false, computerMode: Bool = false, objectInfoBusySeconds: Double = 0) {
        self.isZ = isZ
        self.computerMode = computerMode
        self.objectInfoBusySeconds = objectInfoBusySeconds
    }

    func operations(camera: SimCamera) -> [PTPOperationCode] {
        let common =
            standardOperations + [
                .initiateCapture, .nikonGetEvent, .nikonGetEventEx, .getDevicePropDesc, .getDevicePropValue,
                .setDevicePropValue,
            ]
        return isZ ? common + [.nikonGetObjectSize, .nikonGetPartialObjectEx] : common
    }

    var events: [PTPEventCode] { [.objectAdded, .objectRemoved, .objectInfoChanged, .devicePropChanged, .captureComplete] }

    var properties: [PTPDevicePropertyCode] { [.batteryLevel] + SimStandardExposure.nikon.properties }

    mutating func respond(to request: PTPOperationRequest, dataOut: [UInt8]?, camera: inout SimCamera) -> SimReply? {
        let p = request.parameters
        func param(_ index: Int) -> UInt32 { index < p.count ? p[index] : 0 }
        if let reply = SimStandardExposure.nikon.respond(
            to: request, dataOut: dataOut, exposure: camera.card.exposure, setter: .setDevicePropValue)
        {
            return reply
        }
        if let reply = SimBatteryProperty.respond(to: request, property: .batteryLevel, camera: camera) {
            if reply.code == .ok { battery.read(camera.card.battery.percent) }
            return reply
        }
        switch request.code {
        case .setDevicePropValue:
            return SimReply(code: .devicePropNotSupported)
        case .initiateCapture:
            camera.shoot()
            var reply = SimReply(code: .ok)
            if isZ {
                reply.events = takePushEvents(camera: &camera)
            } else {
                // The shots stay queued for GetEvent as well.
                reply.events = camera.undelivered.map { PTPEvent(code: .objectAdded, parameters: [$0.handle]) }
                markAnnounced(camera.undelivered, now: camera.clock())
            }
            reply.events.append(PTPEvent(code: .captureComplete, transactionID: request.transactionID))
            return reply
        case .nikonGetEvent, .nikonGetEventEx:
            let objects = camera.undelivered
            camera.undelivered.removeAll()
            markAnnounced(objects, now: camera.clock())
            var events = objects.map { NikonEvent(code: .objectAdded, parameter: $0.handle) }
            // A shot protected or rated on the body (gphoto2 issue 468: a D5600 lists 0x4007).
            events += camera.takeInfoChangedEvents().compactMap { event in
                event.parameters.first.map { NikonEvent(code: .objectInfoChanged, parameter: $0) }
            }
            if battery.changed(camera.card.battery.percent) {
                events.append(NikonEvent(code: .devicePropChanged, parameter: UInt32(PTPDevicePropertyCode.batteryLevel.rawValue)))
            }
            if camera.card.exposure.changeCount != exposureChangesReported {
                exposureChangesReported = camera.card.exposure.changeCount
                events.append(NikonEvent(code: .devicePropChanged, parameter: UInt32(PTPDevicePropertyCode.exposureTime.rawValue)))
            }
            let list = NikonEventList(events: events)
            return SimReply(code: .ok, data: request.code == .nikonGetEventEx ? list.encodedEx() : list.encoded())
        case .getObjectInfo:
            if computerMode { return SimReply(code: .accessDenied) }
            if let at = announcedAt[param(0)], camera.clock() - at < objectInfoBusySeconds {
                return SimReply(code: .generalError)
            }
            return nil
        case .getObject, .getPartialObject:
            return computerMode ? SimReply(code: .accessDenied) : nil
        case .nikonGetObjectSize:
            guard let object = camera.card.object(param(0)), !object.isFolder else {
                return SimReply(code: .invalidObjectHandle)
            }
            var writer = PTPDataWriter(capacity: 8)
            writer.appendU64(UInt64(object.size))
            return SimReply(code: .ok, data: writer.bytes)
        case .nikonGetPartialObjectEx:
            guard let object = camera.card.object(param(0)), !object.isFolder else {
                return SimReply(code: .invalidObjectHandle)
            }
            let offset = UInt64(param(1)) | UInt64(param(2)) << 32
            let maximum = UInt64(param(3)) | UInt64(param(4)) << 32
            return SimCamera.transfer(
                object, offset: Int(min(offset, UInt64(Int.max))),
                count: Int(min(maximum, UInt64(Int.max)))
            ) { count in
                [UInt32(truncatingIfNeeded: count), UInt32(truncatingIfNeeded: UInt64(count) >> 32)]
            }
        default:
            return nil
        }
    }

    /// Z: ObjectAdded on the event channel for each new photo, once.
    mutating func takePushEvents(camera: inout SimCamera) -> [PTPEvent] {
        guard isZ, camera.sessionOpen else { return [] }
        let fresh = camera.undelivered.filter { !pushed.contains($0.handle) }
        markAnnounced(fresh, now: camera.clock())
        pushed.formUnion(fresh.map(\.handle))
        return fresh.map { PTPEvent(code: .objectAdded, parameters: [$0.handle]) }
    }

    private mutating func markAnnounced(_ objects: [SimObject], now: Double) {
        for object in objects where announcedAt[object.handle] == nil { announcedAt[object.handle] = now }
    }
}
