/// A PTP operation code (standard or vendor), kept open so unknown codes still round-trip.
public struct PTPOperationCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }

    // Standard PTP (ISO 15740).
    public static let getDeviceInfo = PTPOperationCode(0x1001)
    public static let openSession = PTPOperationCode(0x1002)
    public static let closeSession = PTPOperationCode(0x1003)
    public static let getStorageIDs = PTPOperationCode(0x1004)
    public static let getStorageInfo = PTPOperationCode(0x1005)
    public static let getNumObjects = PTPOperationCode(0x1006)
    public static let getObjectHandles = PTPOperationCode(0x1007)
    public static let getObjectInfo = PTPOperationCode(0x1008)
    public static let getObject = PTPOperationCode(0x1009)
    public static let getThumb = PTPOperationCode(0x100A)
    public static let deleteObject = PTPOperationCode(0x100B)
    public static let sendObjectInfo = PTPOperationCode(0x100C)
    public static let sendObject = PTPOperationCode(0x100D)
    public static let initiateCapture = PTPOperationCode(0x100E)
    public static let formatStore = PTPOperationCode(0x100F)
    public static let resetDevice = PTPOperationCode(0x1010)
    public static let selfTest = PTPOperationCode(0x1011)
    public static let setObjectProtection = PTPOperationCode(0x1012)
    public static let powerDown = PTPOperationCode(0x1013)
    public static let getDevicePropDesc = PTPOperationCode(0x1014)
    public static let getDevicePropValue = PTPOperationCode(0x1015)
    public static let setDevicePropValue = PTPOperationCode(0x1016)
    public static let resetDevicePropValue = PTPOperationCode(0x1017)
    public static let terminateOpenCapture = PTPOperationCode(0x1018)
    public static let moveObject = PTPOperationCode(0x1019)
    public static let copyObject = PTPOperationCode(0x101A)
    public static let getPartialObject = PTPOperationCode(0x101B)
    public static let initiateOpenCapture = PTPOperationCode(0x101C)

    // Canon EOS.
    public static let canonEOSGetStorageIDs = PTPOperationCode(0x9101)
    public static let canonEOSGetStorageInfo = PTPOperationCode(0x9102)
    public static let canonEOSGetPartialObject = PTPOperationCode(0x9107)
    public static let canonEOSGetObjectInfoEx = PTPOperationCode(0x9109)
    public static let canonEOSRemoteRelease = PTPOperationCode(0x910F)
    /// Data-out: u32 size, u32 property, value.
    public static let canonEOSSetDevicePropValueEx = PTPOperationCode(0x9110)
    public static let canonEOSSetRemoteMode = PTPOperationCode(0x9114)
    public static let canonEOSSetEventMode = PTPOperationCode(0x9115)
    /// Data-in, no parameters: the pending event records (see `CanonEOSEventList`).
    public static let canonEOSGetEvent = PTPOperationCode(0x9116)
    /// Tells the camera a RequestObjectTransfer download is done (param: handle).
    public static let canonEOSTransferComplete = PTPOperationCode(0x9117)
    public static let canonEOSKeepDeviceOn = PTPOperationCode(0x911D)
    /// Param 1: 1 = half press, 2 = full press; param 2: 0.
    public static let canonEOSRemoteReleaseOn = PTPOperationCode(0x9128)
    public static let canonEOSRemoteReleaseOff = PTPOperationCode(0x9129)

    // Nikon.
    public static let nikonInitiateCaptureRecInSdram = PTPOperationCode(0x90C0)
    /// Data-in: `NikonEventList`.
    public static let nikonGetEvent = PTPOperationCode(0x90C7)
    /// Preferred over GetEvent where DeviceInfo lists it.
    public static let nikonGetEventEx = PTPOperationCode(0x941C)
    /// Param: handle; data-in: the object's size as a u64 (libgphoto2 ptp.h).
    public static let nikonGetObjectSize = PTPOperationCode(0x9421)
    /// Params: handle, offset low, offset high, max bytes low, max bytes high; response
    /// parameters: bytes sent, low and high (libgphoto2 ptp.h). Works where a Nikon Z in
    /// "connect to computer" mode denies GetPartialObject (libgphoto2 issue 976).
    public static let nikonGetPartialObjectEx = PTPOperationCode(0x9431)
    /// Param: 0xD; data-in: a u32 array of vendor codes the body does not list in DeviceInfo
    /// (libgphoto2 commit b1cc028, `ptp_nikon_get_vendorcodes`, for the Z50 II of gphoto2 issue 700).
    public static let nikonGetVendorCodes = PTPOperationCode(0x9439)

    // Sony (libgphoto2 camlibs/ptp2: ptp.h, library.c `fixup_cached_deviceinfo`, `camera_init`).
    /// Params: phase (1, 2, 3), 0, 0. Phases 1 and 2 before GetSDIOExtDeviceInfo, 3 after.
    public static let sonySDIOConnect = PTPOperationCode(0x9201)
    /// Params: protocol version asked for (0x12C = 3.00, 0xC8 = 2.00), 1; data-in: u16 version,
    /// then arrays of extra property and operation codes.
    public static let sonyGetSDIOExtDeviceInfo = PTPOperationCode(0x9202)
    /// Data-out: the value of the property named by param 1 (gphoto2 sets PriorityMode 0xD25A).
    public static let sonySetControlDeviceA = PTPOperationCode(0x9205)
    /// SDIO_ControlDevice (SetControlDeviceB): param property, data the value; presses the
    /// shutter (0xD2C1 half, 0xD2C2 full: 2 down, 1 up; libgphoto2 library.c
    /// `camera_sony_capture`).
    public static let sonySetControlDeviceB = PTPOperationCode(0x9207)
    /// SDIO_GetAllExtDevicePropInfo: every property in one data phase (`SonyPropertyList`).
    public static let sonyGetAllExtDevicePropInfo = PTPOperationCode(0x9209)
    /// PTP/IP only: with 0x9281, sent after start-up ("before file system reading is available")
    /// and before closing (libgphoto2 `camera_init`, `camera_exit`). Param 4; data-out 16 bytes.
    public static let sonyPTPIPTransferMode = PTPOperationCode(0x9280)
    /// PTP/IP only: the data-in half of `sonyPTPIPTransferMode`. Param 4.
    public static let sonyPTPIPTransferModeResult = PTPOperationCode(0x9281)

    private static let names: [UInt16: String] = [
        0x1001: "GetDeviceInfo", 0x1002: "OpenSession", 0x1003: "CloseSession",
        0x1004: "GetStorageIDs", 0x1005: "GetStorageInfo", 0x1006: "GetNumObjects",
        0x1007: "GetObjectHandles", 0x1008: "GetObjectInfo", 0x1009: "GetObject",
        0x100A: "GetThumb", 0x100B: "DeleteObject", 0x100C: "SendObjectInfo",
        0x100D: "SendObject", 0x100E: "InitiateCapture", 0x100F: "FormatStore",
        0x1010: "ResetDevice", 0x1011: "SelfTest", 0x1012: "SetObjectProtection",
        0x1013: "PowerDown", 0x1014: "GetDevicePropDesc", 0x1015: "GetDevicePropValue",
        0x1016: "SetDevicePropValue", 0x1017: "ResetDevicePropValue",
        0x1018: "TerminateOpenCapture", 0x1019: "MoveObject", 0x101A: "CopyObject",
        0x101B: "GetPartialObject", 0x101C: "InitiateOpenCapture",
        0x9101: "Canon EOS GetStorageIDs", 0x9102: "Canon EOS GetStorageInfo",
        0x9107: "Canon EOS GetPartialObject", 0x9109: "Canon EOS GetObjectInfoEx",
        0x910F: "Canon EOS RemoteRelease", 0x9110: "Canon EOS SetDevicePropValueEx", 0x9114: "Canon EOS SetRemoteMode",
        0x9115: "Canon EOS SetEventMode", 0x9116: "Canon EOS GetEvent",
        0x9117: "Canon EOS TransferComplete", 0x911D: "Canon EOS KeepDeviceOn",
        0x9128: "Canon EOS RemoteReleaseOn", 0x9129: "Canon EOS RemoteReleaseOff",
        0x90C0: "Nikon InitiateCaptureRecInSdram", 0x90C7: "Nikon GetEvent",
        0x941C: "Nikon GetEventEx", 0x9421: "Nikon GetObjectSize", 0x9431: "Nikon GetPartialObjectEx", 0x9439: "Nikon GetVendorCodes",
        0x9201: "Sony SDIOConnect", 0x9202: "Sony GetSDIOExtDeviceInfo", 0x9205: "Sony SetControlDeviceA", 0x9207: "Sony SetControlDeviceB",
        0x9209: "Sony GetAllExtDevicePropInfo",
        0x9280: "Sony PTP/IP transfer mode", 0x9281: "Sony PTP/IP transfer mode result",
    ]

    /// The code's name if known ("GetObject"), nil for unknown vendor codes.
    public var name: String? { Self.names[rawValue] }

    public var description: String { ptpCodeDescription(rawValue, digits: 4, name: name) }
}

/// A PTP response code; `isOK` is the only success.
public struct PTPResponseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }

    public static let undefined = PTPResponseCode(0x2000)
    public static let ok = PTPResponseCode(0x2001)
    public static let generalError = PTPResponseCode(0x2002)
    public static let sessionNotOpen = PTPResponseCode(0x2003)
    public static let invalidTransactionID = PTPResponseCode(0x2004)
    public static let operationNotSupported = PTPResponseCode(0x2005)
    public static let parameterNotSupported = PTPResponseCode(0x2006)
    public static let incompleteTransfer = PTPResponseCode(0x2007)
    public static let invalidStorageID = PTPResponseCode(0x2008)
    public static let invalidObjectHandle = PTPResponseCode(0x2009)
    public static let devicePropNotSupported = PTPResponseCode(0x200A)
    public static let invalidObjectFormatCode = PTPResponseCode(0x200B)
    public static let storeFull = PTPResponseCode(0x200C)
    public static let objectWriteProtected = PTPResponseCode(0x200D)
    public static let storeReadOnly = PTPResponseCode(0x200E)
    public static let accessDenied = PTPResponseCode(0x200F)
    public static let noThumbnailPresent = PTPResponseCode(0x2010)
    public static let selfTestFailed = PTPResponseCode(0x2011)
    public static let partialDeletion = PTPResponseCode(0x2012)
    public static let storeNotAvailable = PTPResponseCode(0x2013)
    public static let specificationByFormatUnsupported = PTPResponseCode(0x2014)
    public static let noValidObjectInfo = PTPResponseCode(0x2015)
    public static let invalidCodeFormat = PTPResponseCode(0x2016)
    public static let unknownVendorCode = PTPResponseCode(0x2017)
    public static let captureAlreadyTerminated = PTPResponseCode(0x2018)
    /// Transient: cameras answer this after connecting or on low battery; retry with backoff.
    public static let deviceBusy = PTPResponseCode(0x2019)
    public static let invalidParentObject = PTPResponseCode(0x201A)
    public static let invalidDevicePropFormat = PTPResponseCode(0x201B)
    public static let invalidDevicePropValue = PTPResponseCode(0x201C)
    public static let invalidParameter = PTPResponseCode(0x201D)
    public static let sessionAlreadyOpen = PTPResponseCode(0x201E)
    public static let transactionCancelled = PTPResponseCode(0x201F)
    public static let specificationOfDestinationUnsupported = PTPResponseCode(0x2020)

    private static let names: [UInt16: String] = [
        0x2000: "Undefined", 0x2001: "OK", 0x2002: "GeneralError", 0x2003: "SessionNotOpen",
        0x2004: "InvalidTransactionID", 0x2005: "OperationNotSupported",
        0x2006: "ParameterNotSupported", 0x2007: "IncompleteTransfer",
        0x2008: "InvalidStorageID", 0x2009: "InvalidObjectHandle",
        0x200A: "DevicePropNotSupported", 0x200B: "InvalidObjectFormatCode",
        0x200C: "StoreFull", 0x200D: "ObjectWriteProtected", 0x200E: "StoreReadOnly",
        0x200F: "AccessDenied", 0x2010: "NoThumbnailPresent", 0x2011: "SelfTestFailed",
        0x2012: "PartialDeletion", 0x2013: "StoreNotAvailable",
        0x2014: "SpecificationByFormatUnsupported", 0x2015: "NoValidObjectInfo",
        0x2016: "InvalidCodeFormat", 0x2017: "UnknownVendorCode",
        0x2018: "CaptureAlreadyTerminated", 0x2019: "DeviceBusy",
        0x201A: "InvalidParentObject", 0x201B: "InvalidDevicePropFormat",
        0x201C: "InvalidDevicePropValue", 0x201D: "InvalidParameter",
        0x201E: "SessionAlreadyOpen", 0x201F: "TransactionCancelled",
        0x2020: "SpecificationOfDestinationUnsupported",
    ]

    public var name: String? { Self.names[rawValue] }
    public var isOK: Bool { self == .ok }
    public var description: String { ptpCodeDescription(rawValue, digits: 4, name: name) }
}

/// A PTP event code, from the PTP/IP event channel or inside vendor event lists.
public struct PTPEventCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }

    public static let undefined = PTPEventCode(0x4000)
    public static let cancelTransaction = PTPEventCode(0x4001)
    /// Param: the new object's handle.
    public static let objectAdded = PTPEventCode(0x4002)
    public static let objectRemoved = PTPEventCode(0x4003)
    public static let storeAdded = PTPEventCode(0x4004)
    public static let storeRemoved = PTPEventCode(0x4005)
    public static let devicePropChanged = PTPEventCode(0x4006)
    public static let objectInfoChanged = PTPEventCode(0x4007)
    public static let deviceInfoChanged = PTPEventCode(0x4008)
    public static let requestObjectTransfer = PTPEventCode(0x4009)
    public static let storeFull = PTPEventCode(0x400A)
    public static let deviceReset = PTPEventCode(0x400B)
    public static let storageInfoChanged = PTPEventCode(0x400C)
    public static let captureComplete = PTPEventCode(0x400D)
    public static let unreportedStatus = PTPEventCode(0x400E)
    /// Sony's pushed ObjectAdded (param: handle; 0xFFFFC001 for a shot in camera memory).
    public static let sonyObjectAdded = PTPEventCode(0xC201)

    private static let names: [UInt16: String] = [
        0x4000: "Undefined", 0x4001: "CancelTransaction", 0x4002: "ObjectAdded",
        0x4003: "ObjectRemoved", 0x4004: "StoreAdded", 0x4005: "StoreRemoved",
        0x4006: "DevicePropChanged", 0x4007: "ObjectInfoChanged", 0x4008: "DeviceInfoChanged",
        0x4009: "RequestObjectTransfer", 0x400A: "StoreFull", 0x400B: "DeviceReset",
        0x400C: "StorageInfoChanged", 0x400D: "CaptureComplete", 0x400E: "UnreportedStatus",
        0xC201: "Sony ObjectAdded",
    ]

    public var name: String? { Self.names[rawValue] }
    public var description: String { ptpCodeDescription(rawValue, digits: 4, name: name) }
}

/// The vendor extension id from DeviceInfo, which selects the vendor dialect.
public struct PTPVendorExtension: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }

    /// Also used by Canon and Nikon bodies: then the manufacturer string decides the dialect.
    public static let microsoft = PTPVendorExtension(0x6)
    public static let nikon = PTPVendorExtension(0xA)
    public static let canon = PTPVendorExtension(0xB)
    public static let fuji = PTPVendorExtension(0xE)
    public static let sony = PTPVendorExtension(0x11)
    /// What Nikon Z and Sony bodies report over PTP/IP (libgphoto2 calls it PTP_VENDOR_MTP): the
    /// manufacturer string decides the dialect then (libgphoto2 `fixup_cached_deviceinfo`).
    public static let mtp = PTPVendorExtension(0xFFFF_FFFF)

    private static let names: [UInt32: String] = [
        0x6: "Microsoft", 0xA: "Nikon", 0xB: "Canon", 0xE: "Fuji", 0x11: "Sony", 0xFFFF_FFFF: "MTP",
    ]

    public var name: String? { Self.names[rawValue] }
    public var description: String { ptpCodeDescription(rawValue, digits: 8, name: name) }
}

/// A PTP device property code (standard or vendor), as GetDevicePropValue and vendor event
/// records name it.
public struct PTPDevicePropertyCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }

    public static let batteryLevel = PTPDevicePropertyCode(0x5001)
    /// ExposureTime, UINT32 in units of 0.0001 s (ISO 15740; Nikon: `ShutterSpeedCodes`).
    public static let exposureTime = PTPDevicePropertyCode(0x500D)
    /// ExposureProgramMode, UINT16: 1 M, 2 P, 3 A, 4 S (`ExposureMode.standard`).
    public static let exposureProgramMode = PTPDevicePropertyCode(0x500E)
    /// Canon EOS shutter speed; the value is Canon's APEX-like code (see `CanonShutterSpeed`).
    public static let canonEOSShutterSpeed = PTPDevicePropertyCode(0xD102)
    /// Canon EOS AutoExposureMode: 0 P, 1 Tv, 2 Av, 3 M, 4 bulb (`ExposureMode.canonEOS`).
    public static let canonEOSAutoExposureMode = PTPDevicePropertyCode(0xD105)
    /// Canon EOS battery level, in steps (see `BatteryLevel.percent(canonEOSStep:)`), reported in
    /// the GetEvent stream (libgphoto2 ptp.h PTP_DPC_CANON_EOS_BatteryPower).
    public static let canonEOSBatteryPower = PTPDevicePropertyCode(0xD111)
    /// Canon EOS shots that still fit on the card, in the GetEvent stream (libgphoto2 ptp.h
    /// PTP_DPC_CANON_EOS_AvailableShots).
    public static let canonEOSAvailableShots = PTPDevicePropertyCode(0xD11B)
    /// Sony battery level, INT8 percent, -1 unknown (libgphoto2 ptp.h PTP_DPC_SONY_BatteryLevel,
    /// config.c `_get_SONY_BatteryLevel`).
    public static let sonyBatteryLevel = PTPDevicePropertyCode(0xD218)
    /// Sony half press (ShutterHalfRelease) and full press (ShutterRelease), set with
    /// SetControlDeviceB: 2 down, 1 up (libgphoto2 ptp.h, library.c `camera_sony_capture`).
    public static let sonyShutterHalfRelease = PTPDevicePropertyCode(0xD2C1)
    public static let sonyShutterRelease = PTPDevicePropertyCode(0xD2C2)
    /// Sony shutter speed, UINT32 numerator << 16 | denominator, 0 bulb (`ShutterSpeedCodes`).
    public static let sonyShutterSpeed = PTPDevicePropertyCode(0xD20D)
    /// Canon EOS capture destination: 4 = camera memory (RAM), 2 = card.
    public static let canonEOSCaptureDestination = PTPDevicePropertyCode(0xD11C)
    /// Sony: above 0x8000 when a shot waits in camera memory at handle 0xFFFFC001
    /// (libgphoto2 library.c, `camera_wait_for_event`).
    public static let sonyObjectInMemory = PTPDevicePropertyCode(0xD215)

    private static let names: [UInt16: String] = [
        0x5001: "BatteryLevel", 0x500D: "ExposureTime", 0x500E: "ExposureProgramMode", 0xD102: "Canon EOS ShutterSpeed",
        0xD105: "Canon EOS AutoExposureMode",
        0xD111: "Canon EOS BatteryPower",
        0xD11B: "Canon EOS AvailableShots", 0xD218: "Sony BatteryLevel", 0xD20D: "Sony ShutterSpeed",
        0xD11C: "Canon EOS CaptureDestination", 0xD215: "Sony ObjectInMemory",
    ]

    public var name: String? { Self.names[rawValue] }
    public var description: String { ptpCodeDescription(rawValue, digits: 4, name: name) }
}
