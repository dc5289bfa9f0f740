import PTPWire

/// What a camera's events said about its battery and card since the power reader last looked:
/// the dialects note what passes through their event handling here (on the session), and
/// `CameraPower` acts on it, so that no event is read twice and no dialect reads the battery.
struct CameraPowerSignals: Equatable, Sendable {
    /// DevicePropChanged for a battery property (or without a property code).
    var batteryChanged = false
    /// StorageInfoChanged, StoreFull, a store added or removed.
    var storageChanged = false
    /// Canon EOS BatteryPower (0xD111) from the GetEvent stream, not yet taken.
    var canonBatteryStep: UInt32?
    /// Canon EOS AvailableShots (0xD11B) from the GetEvent stream, not yet taken.
    var canonAvailableShots: UInt32?

    /// The properties that carry a battery level (standard, Sony).
    static let batteryProperties: Set<UInt32> = [
        UInt32(PTPDevicePropertyCode.batteryLevel.rawValue), UInt32(PTPDevicePropertyCode.sonyBatteryLevel.rawValue),
    ]

    /// An event from the event channel or a vendor's event list (Nikon's carries the property
    /// code as its parameter, as the standard event does).
    mutating func note(_ code: PTPEventCode, parameter: UInt32?) {
        switch code {
        case .devicePropChanged:
            if parameter.map(Self.batteryProperties.contains) ?? true { batteryChanged = true }
        case .storageInfoChanged, .storeFull, .storeAdded, .storeRemoved:
            storageChanged = true
        default:
            break
        }
    }

    /// The property values of a Canon EOS GetEvent reply.
    mutating func note(canon values: [PTPDevicePropertyCode: UInt32]) {
        if let step = values[.canonEOSBatteryPower] { canonBatteryStep = step }
        if let shots = values[.canonEOSAvailableShots] { canonAvailableShots = shots }
    }
}
