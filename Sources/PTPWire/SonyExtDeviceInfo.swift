/// Sony's GetSDIOExtDeviceInfo reply: u16 protocol version, then two arrays of u16 codes whose
/// 0x7000 bits say operation (0x1000), event (0x4000) or property (0x5000) (libgphoto2 ptp.c
/// `ptp_sony_get_vendorpropcodes`).
public struct SonyExtDeviceInfo: Equatable, Sendable {
    public var version: UInt16
    public var codes: [UInt16]

    public init(decoding data: [UInt8]) throws(PTPWireError) {
        var reader = PTPDataReader(data)
        version = try reader.readU16()
        codes = try reader.readArrayU16()
        if reader.remaining > 0 { codes += try reader.readArrayU16() }
    }
}

extension PTPDeviceInfo {
    /// Adds the operations, events and properties Sony lists only in its extended DeviceInfo.
    public mutating func merge(_ extra: SonyExtDeviceInfo) {
        for code in extra.codes {
            switch code & 0x7000 {
            case 0x1000 where !operationsSupported.contains(code): operationsSupported.append(code)
            case 0x4000 where !eventsSupported.contains(code): eventsSupported.append(code)
            case 0x5000 where !devicePropertiesSupported.contains(code): devicePropertiesSupported.append(code)
            default: break
            }
        }
    }
}
