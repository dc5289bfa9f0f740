import CommandLineOptions
import Foundation
import PTPWire
import RelayCore

/// The body's exposure settings: the mode dial and the shutter speed. Kept with the card, like
/// the battery, so they outlast a session; each shot's JPEG carries the speed in effect as EXIF
/// ExposureTime, so a test can tell which speed a frame was fired at.
public final class SimExposure: Sendable {
    /// The dial's position (`--exposure-mode`); a client cannot turn the dial.
    public let mode: ExposureMode
    /// The speeds the body offers, slowest first.
    public let offered: [ShutterSpeed]
    /// The speed set, and how often it changed (so each session reports a change once).
    private let setting: LockedBox<(speed: ShutterSpeed, changes: Int)>

    init(mode: ExposureMode, offered: [ShutterSpeed], speed: ShutterSpeed) {
        self.mode = mode
        self.offered = offered
        setting = LockedBox((offered.contains(speed) ? speed : offered[offered.count / 2], 0))
    }

    /// The speeds of `profile`'s body and the one set at start: a Nikon D5100's 1/4000 to 30"
    /// (libgphoto2 issue 94) on nikon; on canon-*, what the recorded R50 allows (its 0xD102 list:
    /// 30" to 1/4000) and its 2.5"; 30" to 1/8000 in third stops on the others; 1/125 at start.
    static func speeds(of profile: SimProfile) -> (offered: [ShutterSpeed], start: ShutterSpeed) {
        let start = ShutterSpeed(numerator: 1, denominator: 125) ?? ShutterSpeed.thirdStops[0]
        switch profile {
        case .nikon:
            return (ShutterSpeedCodes.nikonD5100ExposureTimes.compactMap(ShutterSpeedCodes.exposureTimeSpeed).reversed(), start)
        case .canonEOS, .canonR5m2, .canonEOSM:
            let recorded = CanonEOSRecordedEvents.shutterSpeeds
            let offered = recorded.allowed.compactMap(ShutterSpeedCodes.canonSpeed)
            return (offered, ShutterSpeedCodes.canonSpeed(code: recorded.current) ?? start)
        default:
            return (ShutterSpeed.thirdStops, start)
        }
    }

    public var current: ShutterSpeed { setting.current.speed }

    /// How many times the speed changed, for a session to report each change once.
    var changeCount: Int { setting.current.changes }

    /// Why the body refuses a new speed now, nil when it takes one: the dial decides in A and P.
    var refusal: PTPResponseCode? { mode.allowsSettingShutterSpeed ? nil : .accessDenied }

    /// Sets the speed; false when the body does not offer it.
    func set(_ new: ShutterSpeed) -> Bool {
        guard offered.contains(new) else { return false }
        setting.withLockedValue { setting in
            if setting.speed != new { setting.changes += 1 }
            setting.speed = new
        }
        return true
    }

    /// `--exposure-mode`: M, S (or Tv), A (or Av), P.
    static func mode(_ text: String) throws(CommandFailure) -> ExposureMode {
        switch text.uppercased() {
        case "M": return .manual
        case "S", "TV": return .shutterPriority
        case "A", "AV": return .aperturePriority
        case "P": return .program
        default: throw CommandFailure.badValue("--exposure-mode", text, expected: "M, S, A or P")
        }
    }
}

/// The exposure properties as standard PTP describes them (GetDevicePropDesc, GetDevicePropValue)
/// in a vendor's encoding: the shutter speed UINT32 with an enumeration of the body's values,
/// read-write, and ExposureProgramMode 0x500E, UINT16, read-only (the dial; 1 M, 2 P, 3 A, 4 S).
/// Nikon: ExposureTime 0x500D in 0.1 ms, set with SetDevicePropValue (ISO 15740; libgphoto2
/// config.c `_get_ExpTime`, `_put_ExpTime`). Sony: ShutterSpeed 0xD20D as numerator << 16 |
/// denominator, set with SDIO SetControlDeviceA (libgphoto2 config.c `_get_Sony_ShutterSpeed`,
/// `_put_Sony_ShutterSpeed`; ptp.c `ptp_sony_setdevicecontrolvaluea`).
struct SimStandardExposure {
    let speedProperty: PTPDevicePropertyCode
    let encode: @Sendable (ShutterSpeed) -> UInt32?
    let decode: @Sendable (UInt32) -> ShutterSpeed?

    static let nikon = SimStandardExposure(
        speedProperty: .exposureTime, encode: { ShutterSpeedCodes.exposureTimeValue($0) },
        decode: ShutterSpeedCodes.exposureTimeSpeed)
    static let sony = SimStandardExposure(
        speedProperty: .sonyShutterSpeed, encode: ShutterSpeedCodes.sonyValue, decode: ShutterSpeedCodes.sonySpeed)

    var properties: [PTPDevicePropertyCode] { [speedProperty, .exposureProgramMode] }

    func description(_ property: PTPDevicePropertyCode, exposure: SimExposure) -> PTPDevicePropDesc? {
        switch property {
        case speedProperty:
            let values = exposure.offered.compactMap(encode).map(Int64.init)
            return PTPDevicePropDesc(
                property: property, dataType: .uint32, getSet: 1, factoryDefault: values[values.count / 2],
                current: Int64(encode(exposure.current) ?? 0), form: .enumeration(values))
        case .exposureProgramMode:
            return PTPDevicePropDesc(
                property: property, dataType: .uint16, getSet: 0, factoryDefault: 2,
                current: Int64(exposure.mode.standardValue), form: .enumeration([1, 2, 3, 4]))
        default:
            return nil
        }
    }

    /// The answer to GetDevicePropDesc or GetDevicePropValue on an exposure property, or to
    /// `setter` (SetDevicePropValue, SetControlDeviceA) on the speed; nil for other operations
    /// and properties.
    func respond(
        to request: PTPOperationRequest, dataOut: [UInt8]?, exposure: SimExposure, setter: PTPOperationCode
    ) -> SimReply? {
        guard let code = request.parameters.first, code <= UInt32(UInt16.max),
            let desc = description(PTPDevicePropertyCode(UInt16(code)), exposure: exposure)
        else { return nil }
        switch request.code {
        case .getDevicePropDesc:
            return SimReply(code: .ok, data: desc.encoded())
        case .getDevicePropValue:
            return SimReply(code: .ok, data: PTPDevicePropDesc.encodeValue(desc.current, as: desc.dataType))
        case setter:
            guard desc.getSet == 1 else { return SimReply(code: .accessDenied) }
            if let refusal = exposure.refusal { return SimReply(code: refusal) }
            guard let value = try? PTPDevicePropDesc.decodeValue(dataOut ?? [], as: .uint32),
                let speed = decode(UInt32(truncatingIfNeeded: value)), exposure.set(speed)
            else { return SimReply(code: .invalidDevicePropValue) }
            return SimReply(code: .ok)
        default:
            return nil
        }
    }
}
