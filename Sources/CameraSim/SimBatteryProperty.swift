import PTPWire

/// The battery as a device property, the way the bodies that expose it answer for it:
/// BatteryLevel 0x5001, UINT8 with a 0–100 range (standard PTP, Nikon), or Sony's 0xD218, INT8
/// with a range from -1 (libgphoto2 config.c `_get_BatteryLevel`, `_get_SONY_BatteryLevel`).
enum SimBatteryProperty {
    /// The description a body gives for `property` at `percent`.
    static func description(_ property: PTPDevicePropertyCode, percent: Int) -> PTPDevicePropDesc {
        if property == .sonyBatteryLevel {
            return PTPDevicePropDesc(
                property: property, dataType: .int8, factoryDefault: -1, current: Int64(percent),
                form: .range(minimum: -1, maximum: 100, step: 1))
        }
        return PTPDevicePropDesc(
            property: property, dataType: .uint8, factoryDefault: 100, current: Int64(percent),
            form: .range(minimum: 0, maximum: 100, step: 1))
    }

    /// The answer to GetDevicePropDesc or GetDevicePropValue when the body's battery property is
    /// `property`: the battery for it, DevicePropNotSupported for any other; nil for other operations.
    static func respond(to request: PTPOperationRequest, property: PTPDevicePropertyCode, camera: SimCamera) -> SimReply? {
        guard request.code == .getDevicePropDesc || request.code == .getDevicePropValue else { return nil }
        guard request.parameters.first == UInt32(property.rawValue) else { return SimReply(code: .devicePropNotSupported) }
        let desc = description(property, percent: camera.card.battery.percent)
        if request.code == .getDevicePropDesc { return SimReply(code: .ok, data: desc.encoded()) }
        return SimReply(code: .ok, data: PTPDevicePropDesc.encodeValue(desc.current, as: desc.dataType))
    }
}

/// What one session last told its client about the battery, so that a change is reported once,
/// as a body reports a property when it changes.
struct SimBatteryReport: Sendable {
    private var reported: Int?

    /// Whether `value` differs from what was last reported or read; the first call only notes it
    /// (the client reads the level itself when it connects).
    mutating func changed(_ value: Int) -> Bool {
        defer { reported = value }
        return reported.map { $0 != value } ?? false
    }

    /// The client read the level itself: it knows `value`.
    mutating func read(_ value: Int) {
        reported = value
    }
}
