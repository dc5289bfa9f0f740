import PTPWire

extension SimBody {
    /// A standard PTP/IP camera with no vendor extension.
    static let generic = SimBody(
        vendorExtensionID: 0, vendorExtensionDescription: "", manufacturer: "Relay Simulated Cameras",
        model: "Generic PTP/IP (relay camera-sim)", deviceVersion: "1.0", serialNumber: "SIM0GENERIC01",
        folderName: "100MSDCF", namePrefix: "DSC0", rawFormat: ("ARW", 0xB101),  // Sony's RAW code
        storageDescription: "Memory card", dataPacketSize: 0x1_0000)
}

/// The operations every profile answers the standard way.
let standardOperations: [PTPOperationCode] = [
    .getDeviceInfo, .openSession, .closeSession, .getStorageIDs, .getStorageInfo, .getNumObjects,
    .getObjectHandles, .getObjectInfo, .getObject, .deleteObject, .getPartialObject,
]

/// A standard PTP camera (ISO 15740): new photos are ObjectAdded events pushed on the event
/// channel, InitiateCapture fires the shutter and ends with CaptureComplete. Its battery is
/// BatteryLevel 0x5001, a change pushed as DevicePropChanged.
struct GenericBehaviour: SimBehaviour {
    private var battery = SimBatteryReport()

    func operations(camera: SimCamera) -> [PTPOperationCode] {
        standardOperations + [.initiateCapture, .getDevicePropDesc, .getDevicePropValue]
    }

    var events: [PTPEventCode] { [.objectAdded, .objectRemoved, .objectInfoChanged, .devicePropChanged, .captureComplete] }

    var properties: [PTPDevicePropertyCode] { [.batteryLevel] }

    mutating func respond(to request: PTPOperationRequest, dataOut: [UInt8]?, camera: inout SimCamera) -> SimReply? {
        if let reply = SimBatteryProperty.respond(to: request, property: .batteryLevel, camera: camera) {
            if reply.code == .ok { battery.read(camera.card.battery.percent) }
            return reply
        }
        guard request.code == .initiateCapture else { return nil }
        camera.shoot()
        var reply = SimReply(code: .ok)
        reply.events = takePushEvents(camera: &camera)
        reply.events.append(PTPEvent(code: .captureComplete, transactionID: request.transactionID))
        return reply
    }

    mutating func takePushEvents(camera: inout SimCamera) -> [PTPEvent] {
        guard camera.sessionOpen else { return [] }
        var events = camera.undelivered.map { PTPEvent(code: .objectAdded, parameters: [$0.handle]) }
        camera.undelivered.removeAll()
        events += camera.takeInfoChangedEvents()
        if battery.changed(camera.card.battery.percent) {
            events.append(PTPEvent(code: .devicePropChanged, parameters: [UInt32(PTPDevicePropertyCode.batteryLevel.rawValue)]))
        }
        return events
    }
}
