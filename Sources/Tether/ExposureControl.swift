import PTPIP
import PTPWire

/// What bracketing needs to know of a body before its first frame: the exposure mode its dial
/// is in, the shutter speeds it offers, and the value it takes for each.
public struct ExposureControl: Sendable, Equatable {
    /// Nil when the body does not say (then relay sets speeds and lets the body refuse them).
    public var mode: ExposureMode?
    /// The speeds the body offers, slowest first; empty when it does not list them.
    public var offered: [ShutterSpeed]
    /// The speed set now.
    public var current: ShutterSpeed?
    /// The value to write for each offered speed, as the body listed it.
    var values: [ShutterSpeed: UInt32] = [:]

    public init(mode: ExposureMode?, offered: [ShutterSpeed], current: ShutterSpeed?) {
        self.mode = mode
        self.offered = offered
        self.current = current
    }
}

/// The exposure properties of standard PTP, as Nikon bodies use them (ISO 15740; libgphoto2
/// config.c `_get_ExpTime`, `_put_ExpTime`, `exposure_program_modes`): ExposureTime 0x500D
/// (UINT32, 0.1 ms) set with SetDevicePropValue and read back with GetDevicePropValue, and
/// ExposureProgramMode 0x500E for the dial.
enum StandardExposure {
    /// Whether `session`'s body lists ExposureTime and the operations to read and set it.
    static func isAvailable(_ session: CameraSession) -> Bool {
        session.deviceInfo.devicePropertiesSupported.contains(PTPDevicePropertyCode.exposureTime.rawValue)
            && session.supports(.getDevicePropDesc) && session.supports(.setDevicePropValue)
    }

    static func control(_ session: CameraSession) throws(PTPIPError) -> ExposureControl? {
        guard isAvailable(session), let time = try description(.exposureTime, session) else { return nil }
        var mode: ExposureMode?
        if session.deviceInfo.devicePropertiesSupported.contains(PTPDevicePropertyCode.exposureProgramMode.rawValue),
            let program = try description(.exposureProgramMode, session)
        {
            mode = .standard(UInt16(truncatingIfNeeded: program.current))
        }
        var control = ExposureControl(
            mode: mode, offered: [], current: ShutterSpeedCodes.exposureTimeSpeed(UInt32(truncatingIfNeeded: time.current)))
        if case .enumeration(let values) = time.form {
            for value in values {
                guard let speed = ShutterSpeedCodes.exposureTimeSpeed(UInt32(truncatingIfNeeded: value)) else { continue }
                if control.values[speed] == nil { control.offered.append(speed) }
                control.values[speed] = UInt32(truncatingIfNeeded: value)
            }
            control.offered.sort(by: >)
        }
        return control
    }

    static func set(_ speed: ShutterSpeed, _ control: ExposureControl, _ session: CameraSession) throws(PTPIPError) -> PTPResponseCode {
        let value = control.values[speed] ?? ShutterSpeedCodes.exposureTimeValue(speed)
        let data = PTPDevicePropDesc.encodeValue(Int64(value), as: .uint32)
        return try session.call(.setDevicePropValue, [UInt32(PTPDevicePropertyCode.exposureTime.rawValue)], dataOut: data).code
    }

    static func current(_ session: CameraSession) throws(PTPIPError) -> ShutterSpeed? {
        let reply = try session.call(
            .getDevicePropValue, [UInt32(PTPDevicePropertyCode.exposureTime.rawValue)], dataIn: .collect(limit: 64))
        guard reply.code.isOK, let value = try? PTPDevicePropDesc.decodeValue(reply.data ?? [], as: .uint32) else { return nil }
        return ShutterSpeedCodes.exposureTimeSpeed(UInt32(truncatingIfNeeded: value))
    }

    private static func description(_ property: PTPDevicePropertyCode, _ session: CameraSession) throws(PTPIPError) -> PTPDevicePropDesc? {
        let reply = try session.call(.getDevicePropDesc, [UInt32(property.rawValue)], dataIn: .collect(limit: CameraSession.collectLimit))
        guard reply.code.isOK else { return nil }
        return try? PTPDevicePropDesc(decoding: reply.data ?? [])
    }
}
