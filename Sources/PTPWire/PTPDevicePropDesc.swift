/// The DevicePropDesc dataset (GetDevicePropDesc 0x1014) of an integer property: its type, its
/// current value and the form that says what the value means (a range or a list of values).
/// Battery levels need the form: PTP leaves the scale to the body (ISO 15740 §13.3.3; libgphoto2
/// camlibs/ptp2 config.c `_get_BatteryLevel` scales by it).
public struct PTPDevicePropDesc: Equatable, Sendable {
    /// Integer PTP data type codes (ISO 15740 table 3; libgphoto2 ptp.h `PTP_DTC_*`).
    public enum DataType: UInt16, Sendable {
        case int8 = 0x0001
        case uint8 = 0x0002
        case int16 = 0x0003
        case uint16 = 0x0004
        case int32 = 0x0005
        case uint32 = 0x0006
        case int64 = 0x0007
        case uint64 = 0x0008

        public var byteCount: Int {
            switch self {
            case .int8, .uint8: return 1
            case .int16, .uint16: return 2
            case .int32, .uint32: return 4
            case .int64, .uint64: return 8
            }
        }
    }

    /// What the values may be: FormFlag 0 none, 1 range, 2 enumeration.
    public enum Form: Equatable, Sendable {
        case none
        case range(minimum: Int64, maximum: Int64, step: Int64)
        case enumeration([Int64])
    }

    public var property: PTPDevicePropertyCode
    public var dataType: DataType
    /// 0 read-only, 1 read-write.
    public var getSet: UInt8
    public var factoryDefault: Int64
    public var current: Int64
    public var form: Form

    public init(
        property: PTPDevicePropertyCode, dataType: DataType, getSet: UInt8 = 0, factoryDefault: Int64 = 0,
        current: Int64, form: Form
    ) {
        self.property = property
        self.dataType = dataType
        self.getSet = getSet
        self.factoryDefault = factoryDefault
        self.current = current
        self.form = form
    }

    /// Largest enumeration accepted (a hostile count is refused before allocating).
    static let enumerationLimit = 4096

    /// Decodes the dataset; a non-integer property is `unsupportedDataType`.
    public init(decoding bytes: [UInt8]) throws(PTPWireError) {
        var reader = PTPDataReader(bytes)
        property = PTPDevicePropertyCode(try reader.readU16())
        let rawType = try reader.readU16()
        guard let type = DataType(rawValue: rawType) else { throw .unsupportedDataType(rawType) }
        dataType = type
        getSet = try reader.readU8()
        factoryDefault = try Self.readValue(type, &reader)
        current = try Self.readValue(type, &reader)
        switch try reader.readU8() {
        case 1:
            form = .range(
                minimum: try Self.readValue(type, &reader), maximum: try Self.readValue(type, &reader),
                step: try Self.readValue(type, &reader))
        case 2:
            let count = Int(try reader.readU16())
            guard count <= Self.enumerationLimit else { throw .arrayTooLong(count: UInt32(count), limit: Self.enumerationLimit) }
            guard count * type.byteCount <= reader.remaining else {
                throw .truncated(needed: count * type.byteCount, available: reader.remaining)
            }
            var values: [Int64] = []
            for _ in 0..<count { values.append(try Self.readValue(type, &reader)) }
            form = .enumeration(values)
        default:
            form = .none
        }
    }

    public func encoded() -> [UInt8] {
        var writer = PTPDataWriter(capacity: 32)
        writer.appendU16(property.rawValue)
        writer.appendU16(dataType.rawValue)
        writer.appendU8(getSet)
        Self.append(factoryDefault, dataType, &writer)
        Self.append(current, dataType, &writer)
        switch form {
        case .none:
            writer.appendU8(0)
        case .range(let minimum, let maximum, let step):
            writer.appendU8(1)
            for value in [minimum, maximum, step] { Self.append(value, dataType, &writer) }
        case .enumeration(let values):
            writer.appendU8(2)
            writer.appendU16(UInt16(min(values.count, Self.enumerationLimit)))
            for value in values.prefix(Self.enumerationLimit) { Self.append(value, dataType, &writer) }
        }
        return writer.bytes
    }

    /// A GetDevicePropValue reply of type `type`: the value alone.
    public static func decodeValue(_ bytes: [UInt8], as type: DataType) throws(PTPWireError) -> Int64 {
        var reader = PTPDataReader(bytes)
        return try readValue(type, &reader)
    }

    /// `value` encoded as a GetDevicePropValue reply of type `type`.
    public static func encodeValue(_ value: Int64, as type: DataType) -> [UInt8] {
        var writer = PTPDataWriter(capacity: 8)
        append(value, type, &writer)
        return writer.bytes
    }

    static func readValue(_ type: DataType, _ reader: inout PTPDataReader) throws(PTPWireError) -> Int64 {
        switch type {
        case .int8: return Int64(Int8(bitPattern: try reader.readU8()))
        case .uint8: return Int64(try reader.readU8())
        case .int16: return Int64(Int16(bitPattern: try reader.readU16()))
        case .uint16: return Int64(try reader.readU16())
        case .int32: return Int64(Int32(bitPattern: try reader.readU32()))
        case .uint32: return Int64(try reader.readU32())
        case .int64: return Int64(bitPattern: try reader.readU64())
        case .uint64: return Int64(truncatingIfNeeded: try reader.readU64())
        }
    }

    static func append(_ value: Int64, _ type: DataType, _ writer: inout PTPDataWriter) {
        switch type.byteCount {
        case 1: writer.appendU8(UInt8(truncatingIfNeeded: value))
        case 2: writer.appendU16(UInt16(truncatingIfNeeded: value))
        case 4: writer.appendU32(UInt32(truncatingIfNeeded: value))
        default: writer.appendU64(UInt64(bitPattern: value))
        }
    }
}
