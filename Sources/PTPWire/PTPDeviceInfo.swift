/// The DeviceInfo dataset (GetDeviceInfo): who the camera is and which codes it supports.
public struct PTPDeviceInfo: Equatable, Sendable {
    public var standardVersion: UInt16
    public var vendorExtensionID: PTPVendorExtension
    public var vendorExtensionVersion: UInt16
    public var vendorExtensionDescription: String
    public var functionalMode: UInt16
    public var operationsSupported: [UInt16]
    public var eventsSupported: [UInt16]
    public var devicePropertiesSupported: [UInt16]
    public var captureFormats: [UInt16]
    public var imageFormats: [UInt16]
    public var manufacturer: String
    public var model: String
    public var deviceVersion: String
    public var serialNumber: String

    public init(
        standardVersion: UInt16 = 100, vendorExtensionID: PTPVendorExtension,
        vendorExtensionVersion: UInt16 = 100, vendorExtensionDescription: String = "",
        functionalMode: UInt16 = 0, operationsSupported: [UInt16] = [],
        eventsSupported: [UInt16] = [], devicePropertiesSupported: [UInt16] = [],
        captureFormats: [UInt16] = [], imageFormats: [UInt16] = [],
        manufacturer: String, model: String, deviceVersion: String, serialNumber: String
    ) {
        self.standardVersion = standardVersion
        self.vendorExtensionID = vendorExtensionID
        self.vendorExtensionVersion = vendorExtensionVersion
        self.vendorExtensionDescription = vendorExtensionDescription
        self.functionalMode = functionalMode
        self.operationsSupported = operationsSupported
        self.eventsSupported = eventsSupported
        self.devicePropertiesSupported = devicePropertiesSupported
        self.captureFormats = captureFormats
        self.imageFormats = imageFormats
        self.manufacturer = manufacturer
        self.model = model
        self.deviceVersion = deviceVersion
        self.serialNumber = serialNumber
    }

    /// Decodes the dataset; bytes after the serial number are ignored (later PTP versions and
    /// vendors may append fields).
    public init(decoding bytes: [UInt8]) throws(PTPWireError) {
        var reader = PTPDataReader(bytes)
        standardVersion = try reader.readU16()
        vendorExtensionID = PTPVendorExtension(try reader.readU32())
        vendorExtensionVersion = try reader.readU16()
        vendorExtensionDescription = try reader.readString()
        functionalMode = try reader.readU16()
        operationsSupported = try reader.readArrayU16()
        eventsSupported = try reader.readArrayU16()
        devicePropertiesSupported = try reader.readArrayU16()
        captureFormats = try reader.readArrayU16()
        imageFormats = try reader.readArrayU16()
        manufacturer = try reader.readString()
        model = try reader.readString()
        deviceVersion = try reader.readString()
        serialNumber = try reader.readString()
    }

    public func encoded() -> [UInt8] {
        var writer = PTPDataWriter(capacity: 256)
        writer.appendU16(standardVersion)
        writer.appendU32(vendorExtensionID.rawValue)
        writer.appendU16(vendorExtensionVersion)
        writer.appendString(vendorExtensionDescription)
        writer.appendU16(functionalMode)
        writer.appendArrayU16(operationsSupported)
        writer.appendArrayU16(eventsSupported)
        writer.appendArrayU16(devicePropertiesSupported)
        writer.appendArrayU16(captureFormats)
        writer.appendArrayU16(imageFormats)
        writer.appendString(manufacturer)
        writer.appendString(model)
        writer.appendString(deviceVersion)
        writer.appendString(serialNumber)
        return writer.bytes
    }

    /// Whether the camera lists `operation` (e.g. to prefer Nikon GetEventEx).
    public func supports(_ operation: PTPOperationCode) -> Bool {
        operationsSupported.contains(operation.rawValue)
    }
}
