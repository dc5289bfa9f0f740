/// Sony's SDIO_GetAllExtDevicePropInfo (0x9209) reply: every property of the body in one data
/// phase, as real bodies hand them out instead of answering GetDevicePropDesc (libgphoto2 ptp.c
/// `_ptp_sony_getalldevicepropdesc`, ptp-pack.c `ptp_unpack_Sony_DPD`).
///
/// Layout: u32 count, u32 0, then the descriptors back to back, each: u16 code, u16 data type,
/// u8 get/set, u8 "is enabled" (0 greyed out, 1 enabled, 2 display only), the factory default
/// and the current value, u8 form flag (1 range: minimum, maximum, step; 2 enumeration: u16
/// count, values). Newer bodies (2024) follow an enumeration with a second u16-counted list that
/// replaces it; a u16 below 0x200 where the next code would be says so. Properties of integer
/// types are kept; others (strings, arrays) are read past.
public struct SonyPropertyList: Equatable, Sendable {
    /// By property code, integer properties only; `getSet` is 0 for one greyed out or display only.
    public var properties: [UInt16: PTPDevicePropDesc]

    public init(properties: [UInt16: PTPDevicePropDesc]) {
        self.properties = properties
    }

    /// Decodes what can be read; a descriptor cut short ends the list there.
    public init(decoding bytes: [UInt8]) throws(PTPWireError) {
        var reader = PTPDataReader(bytes)
        _ = try reader.readU32()
        _ = try reader.readU32()
        var properties: [UInt16: PTPDevicePropDesc] = [:]
        while reader.remaining >= 6 {
            let desc: PTPDevicePropDesc?
            do { desc = try Self.readOne(&reader) } catch { break }
            if let desc { properties[desc.property.rawValue] = desc }
        }
        self.properties = properties
    }

    /// One descriptor; nil (read past) for a type relay does not keep.
    private static func readOne(_ reader: inout PTPDataReader) throws(PTPWireError) -> PTPDevicePropDesc? {
        let code = try reader.readU16()
        let rawType = try reader.readU16()
        var getSet = try reader.readU8()
        if try reader.readU8() != 1 { getSet = 0 }
        guard let type = PTPDevicePropDesc.DataType(rawValue: rawType) else {
            try skipValue(rawType, &reader)
            try skipValue(rawType, &reader)
            try skipForm(rawType, &reader)
            return nil
        }
        let factoryDefault = try PTPDevicePropDesc.readValue(type, &reader)
        let current = try PTPDevicePropDesc.readValue(type, &reader)
        var form = PTPDevicePropDesc.Form.none
        switch try reader.readU8() {
        case 1:
            form = .range(
                minimum: try PTPDevicePropDesc.readValue(type, &reader), maximum: try PTPDevicePropDesc.readValue(type, &reader),
                step: try PTPDevicePropDesc.readValue(type, &reader))
        case 2:
            form = .enumeration(try readList(type, &reader))
            if let next = try? reader.peekU16(), next < 0x200 { form = .enumeration(try readList(type, &reader)) }
        default:
            break
        }
        return PTPDevicePropDesc(
            property: PTPDevicePropertyCode(code), dataType: type, getSet: getSet, factoryDefault: factoryDefault, current: current,
            form: form)
    }

    private static func readList(_ type: PTPDevicePropDesc.DataType, _ reader: inout PTPDataReader) throws(PTPWireError) -> [Int64] {
        let count = Int(try reader.readU16())
        guard count <= PTPDevicePropDesc.enumerationLimit else {
            throw .arrayTooLong(count: UInt32(count), limit: PTPDevicePropDesc.enumerationLimit)
        }
        var values: [Int64] = []
        for _ in 0..<count { values.append(try PTPDevicePropDesc.readValue(type, &reader)) }
        return values
    }

    /// A value of a type relay does not keep: a string (u8 characters, then UTF-16) or an array
    /// (u32 count, then the elements); anything else cannot be read past.
    private static func skipValue(_ rawType: UInt16, _ reader: inout PTPDataReader) throws(PTPWireError) {
        if rawType == 0xFFFF {
            try reader.skip(Int(try reader.readU8()) * 2)
        } else if rawType & 0x4000 != 0, let element = PTPDevicePropDesc.DataType(rawValue: rawType & ~0x4000) {
            let count = Int(try reader.readU32())
            guard count <= PTPDevicePropDesc.enumerationLimit else {
                throw .arrayTooLong(count: UInt32(count), limit: PTPDevicePropDesc.enumerationLimit)
            }
            try reader.skip(count * element.byteCount)
        } else {
            throw .unsupportedDataType(rawType)
        }
    }

    private static func skipForm(_ rawType: UInt16, _ reader: inout PTPDataReader) throws(PTPWireError) {
        switch try reader.readU8() {
        case 1: for _ in 0..<3 { try skipValue(rawType, &reader) }
        case 2: for _ in 0..<(try reader.readU16()) { try skipValue(rawType, &reader) }
        default: break
        }
    }

    /// The list as a body sends it (for the simulator): each descriptor is the standard one with
    /// "is enabled" (1) after its get/set byte.
    public func encoded() -> [UInt8] {
        var writer = PTPDataWriter()
        writer.appendU32(UInt32(properties.count))
        writer.appendU32(0)
        for desc in properties.values.sorted(by: { $0.property.rawValue < $1.property.rawValue }) {
            var bytes = desc.encoded()
            bytes.insert(1, at: 5)
            writer.appendBytes(bytes)
        }
        return writer.bytes
    }
}
