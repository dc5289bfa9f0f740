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

/// The exposure properties read with standard GetDevicePropDesc/GetDevicePropValue, in a
/// vendor's encoding: Nikon's ExposureTime 0x500D (UINT32, 0.1 ms; ISO 15740; libgphoto2
/// config.c `_get_ExpTime`, `_put_ExpTime`), set with SetDevicePropValue; Sony's ShutterSpeed
/// 0xD20D (numerator << 16 | denominator; config.c `_get_Sony_ShutterSpeed`), set with SDIO
/// SetControlDeviceA 0x9205 as bodies of protocol 3.00 take it (`_put_Sony_ShutterSpeed`).
/// ExposureProgramMode 0x500E says the dial for both.
struct StandardExposure: Sendable {
    let speedProperty: PTPDevicePropertyCode
    /// The operation that writes the speed; its first parameter is the property.
    let setter: PTPOperationCode
    let decode: @Sendable (UInt32) -> ShutterSpeed?
    let encode: @Sendable (ShutterSpeed) -> UInt32?
    /// The operation that hands out every property at once, used where the body lists it
    /// (Sony's 0x9209: real bodies answer it rather than GetDevicePropDesc).
    var allAtOnce: PTPOperationCode?

    static let nikon = StandardExposure(
        speedProperty: .exposureTime, setter: .setDevicePropValue, decode: ShutterSpeedCodes.exposureTimeSpeed,
        encode: { ShutterSpeedCodes.exposureTimeValue($0) })
    static let sony = StandardExposure(
        speedProperty: .sonyShutterSpeed, setter: .sonySetControlDeviceA, decode: ShutterSpeedCodes.sonySpeed,
        encode: ShutterSpeedCodes.sonyValue, allAtOnce: .sonyGetAllExtDevicePropInfo)

    /// Whether `session`'s body lists the speed property and the operations to read and set it.
    func isAvailable(_ session: CameraSession) -> Bool {
        session.deviceInfo.devicePropertiesSupported.contains(speedProperty.rawValue)
            && (session.supports(.getDevicePropDesc) || allAtOnce.map(session.supports) == true) && session.supports(setter)
    }

    func control(_ session: CameraSession) throws(PTPIPError) -> ExposureControl? {
        guard isAvailable(session) else { return nil }
        let descriptions = try describe([speedProperty, .exposureProgramMode], session)
        guard let time = descriptions[speedProperty.rawValue] else { return nil }
        var mode: ExposureMode?
        if session.deviceInfo.devicePropertiesSupported.contains(PTPDevicePropertyCode.exposureProgramMode.rawValue),
            let program = descriptions[PTPDevicePropertyCode.exposureProgramMode.rawValue]
        {
            mode = .standard(UInt16(truncatingIfNeeded: program.current))
        }
        var control = ExposureControl(mode: mode, offered: [], current: decode(UInt32(truncatingIfNeeded: time.current)))
        if case .enumeration(let values) = time.form {
            for value in values {
                guard let speed = decode(UInt32(truncatingIfNeeded: value)) else { continue }
                if control.values[speed] == nil { control.offered.append(speed) }
                control.values[speed] = UInt32(truncatingIfNeeded: value)
            }
            control.offered.sort(by: >)
        }
        return control
    }

    func set(_ speed: ShutterSpeed, _ control: ExposureControl, _ session: CameraSession) throws(PTPIPError) -> PTPResponseCode {
        guard let value = control.values[speed] ?? encode(speed) else { return .invalidDevicePropValue }
        let data = PTPDevicePropDesc.encodeValue(Int64(value), as: .uint32)
        return try session.call(setter, [UInt32(speedProperty.rawValue)], dataOut: data).code
    }

    func current(_ session: CameraSession) throws(PTPIPError) -> ShutterSpeed? {
        if let allAtOnce, session.supports(allAtOnce) {
            return try describe([speedProperty], session)[speedProperty.rawValue].flatMap { decode(UInt32(truncatingIfNeeded: $0.current)) }
        }
        let reply = try session.call(.getDevicePropValue, [UInt32(speedProperty.rawValue)], dataIn: .collect(limit: 64))
        guard reply.code.isOK, let value = try? PTPDevicePropDesc.decodeValue(reply.data ?? [], as: .uint32) else { return nil }
        return decode(UInt32(truncatingIfNeeded: value))
    }

    /// The descriptions of `properties` the body gives, by code: from the all-at-once reply where
    /// the body lists it, else one GetDevicePropDesc each.
    private func describe(_ properties: [PTPDevicePropertyCode], _ session: CameraSession) throws(PTPIPError) -> [UInt16: PTPDevicePropDesc]
    {
        if let allAtOnce, session.supports(allAtOnce) {
            let reply = try session.call(allAtOnce, dataIn: .collect(limit: CameraSession.collectLimit))
            guard reply.code.isOK, let list = try? SonyPropertyList(decoding: reply.data ?? []) else { return [:] }
            return list.properties.filter { code, _ in properties.contains { $0.rawValue == code } }
        }
        var found: [UInt16: PTPDevicePropDesc] = [:]
        for property in properties where session.deviceInfo.devicePropertiesSupported.contains(property.rawValue) {
            let reply = try session.call(
                .getDevicePropDesc, [UInt32(property.rawValue)], dataIn: .collect(limit: CameraSession.collectLimit))
            if reply.code.isOK, let desc = try? PTPDevicePropDesc(decoding: reply.data ?? []) { found[property.rawValue] = desc }
        }
        return found
    }
}
