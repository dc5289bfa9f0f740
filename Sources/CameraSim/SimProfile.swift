/// Which camera the simulator pretends to be. A profile fixes what the client sees first
/// (`SimBody`: vendor extension, manufacturer, model) and how the body behaves where its vendor
/// family differs from standard PTP (`SimBehaviour`), because that is what makes gphoto2 and the
/// tether take different code paths.
public enum SimProfile: String, CaseIterable, Sendable {
    /// Canon EOS over Wi-Fi: photos announced by polled GetEvent (0x9116) records.
    case canonEOS = "canon-eos"
    /// Canon EOS R5 Mark II: 0xC1B6/0xC1B8 records, shots kept in camera memory.
    case canonR5m2 = "canon-r5m2"
    /// Canon EOS M / newer PowerShot: EOS operations only after SetRemoteMode(0x15).
    case canonEOSM = "canon-eosm"
    /// Nikon over Wi-Fi: photos announced by polled GetEvent (0x90C7).
    case nikon
    /// Nikon Z in "connect to computer" mode: vendor id 0xFFFFFFFF, GetObjectInfo denied.
    case nikonZ = "nikon-z"
    /// Nikon Z as far as the public record shows it, and no further: nine operations listed,
    /// only GetPartialObjectEx answering besides them (`NikonZStrictBehaviour`).
    case nikonZStrict = "nikon-z-strict"
    /// Sony in PC Remote: SDIO handshake, photos at 0xFFFFC001, one session per activation.
    case sony
    /// A standard PTP/IP camera: ObjectAdded events pushed on the event channel.
    case generic

    /// Who the body says it is.
    public var body: SimBody {
        switch self {
        case .canonEOS: return .canonEOS
        case .canonR5m2: return .canonR5m2
        case .canonEOSM: return .canonEOSM
        case .nikon: return .nikon
        case .nikonZ: return .nikonZ
        case .nikonZStrict: return .nikonZStrict
        case .sony: return .sony
        case .generic: return .generic
        }
    }

    /// The body's behaviour for a new session, with the quirks as the options set them.
    func makeBehaviour(propertyFlood: Int, quirks: SimQuirks) -> any SimBehaviour {
        switch self {
        case .canonEOS:
            return CanonEOSBehaviour(
                memoryObjectInfoFails: quirks.memoryObjectInfoFails ?? false, propertyFlood: propertyFlood,
                changeRecords: quirks.canonChangeRecords,
                protectionInObjectInfo: quirks.canonProtectionInObjectInfo)
        case .canonR5m2:
            return CanonEOSBehaviour(
                records: .longFileName64, memoryObjectInfoFails: quirks.memoryObjectInfoFails ?? true,
                propertyFlood: propertyFlood, changeRecords: quirks.canonChangeRecords,
                protectionInObjectInfo: quirks.canonProtectionInObjectInfo)
        case .canonEOSM:
            return CanonEOSBehaviour(
                needsRemoteMode: true, memoryObjectInfoFails: quirks.memoryObjectInfoFails ?? false,
                propertyFlood: propertyFlood, changeRecords: quirks.canonChangeRecords,
                protectionInObjectInfo: quirks.canonProtectionInObjectInfo)
        case .nikon:
            return NikonBehaviour(objectInfoBusySeconds: quirks.objectInfoBusySeconds)
        case .nikonZ:
            return NikonBehaviour(isZ: true, computerMode: quirks.computerMode, objectInfoBusySeconds: quirks.objectInfoBusySeconds)
        case .nikonZStrict:
            return NikonZStrictBehaviour(events: quirks.zEvents)
        case .sony:
            return SonyBehaviour(
                handshakeRequired: quirks.sdioHandshakeRequired, sdioVersion: quirks.sdioVersion,
                allPropertiesAtOnce: quirks.sonyAllProperties)
        case .generic:
            return GenericBehaviour()
        }
    }

    /// Whether new shots stay in camera memory unless `--capture-to` says otherwise.
    public var capturesToMemoryByDefault: Bool { self == .canonR5m2 || self == .sony }

    /// Whether `--capture-to` may choose (Canon); Sony in PC Remote always keeps shots in memory.
    public var canChooseCaptureTarget: Bool { self == .canonEOS || self == .canonR5m2 || self == .canonEOSM }

    /// Sessions the body serves before it must be activated again; nil = no limit. A Sony in
    /// "Send to Computer"/PC Remote serves one (libgphoto2 issue 1218).
    public var sessionsPerActivationByDefault: Int? { self == .sony ? 1 : nil }

    public var vendorExtensionID: UInt32 { body.vendorExtensionID }
    public var manufacturer: String { body.manufacturer }
    public var model: String { body.model }
    public var folderName: String { body.folderName }
    public var rawFormat: (fileExtension: String, formatCode: UInt16) { body.rawFormat }
    public var storageDescription: String { body.storageDescription }

    /// The base name of photo number `number` (1-based), as the vendor's bodies write it.
    public func baseName(number: Int) -> String {
        let counter = (number - 1) % 9999 + 1
        let digits = String(counter)
        return body.namePrefix + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
