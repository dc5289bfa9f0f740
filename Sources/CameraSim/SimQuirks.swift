import CommandLineOptions

/// The vendor quirks a profile shows, each switchable so that a test can compare a client's
/// handling of the quirk with the quirk off. nil means the profile's default.
public struct SimQuirks: Sendable, Equatable {
    /// nikon, nikon-z: GetObjectInfo answers GeneralError this long after a photo is announced.
    public var objectInfoBusySeconds: Double = 0
    /// nikon-z: "connect to computer" mode (GetObjectInfo and GetPartialObject denied).
    public var computerMode = true
    /// Canon: GetObjectInfo on a shot in camera memory fails (default: only canon-r5m2).
    public var memoryObjectInfoFails: Bool?
    /// sony: nothing but the SDIO handshake is answered until it is done.
    public var sdioHandshakeRequired = true
    /// Sessions served before the body must be activated again (0 = no limit).
    public var sessionsPerActivation: Int?
    /// nikon-z-strict: how new photos are announced (the public record does not say).
    var zEvents = NikonZStrictBehaviour.Events.pushed
    /// sony: the SDIO protocol version answered (300, or 200 for a body that takes a new
    /// shutter speed only in steps and ignores SetControlDeviceA on it).
    var sdioVersion: UInt16 = 300
    /// sony: list SDIO_GetAllExtDevicePropInfo (0x9209) and hand the properties out there only,
    /// as real bodies do (the standard GetDevicePropDesc/Value answer DevicePropNotSupported).
    var sonyAllProperties = false
    /// A bare TCP connection (a scan's, closed without a handshake) spends the activation too,
    /// as on a body that serves one connection at a time.
    public var probeSpendsActivation = false
    /// canon-*: the records a shot protected or rated on the body raises.
    var canonChangeRecords = CanonEOSBehaviour.ChangeRecords.both
    /// canon-*: where a protection shows: GetObjectInfo's ProtectionStatus and GetObjectInfoEx's
    /// flags, or the flags only.
    var canonProtectionInObjectInfo = true

    public init() {}

    static let objectInfoBusy = Option.duration(
        "--object-info-busy",
        "nikon, nikon-z: answer GeneralError to GetObjectInfo for this long after a photo is announced, as Nikon bodies do "
            + "for up to about 1 s (0: off, as relay's older tether ends the session on it)",
        default: SimQuirks().objectInfoBusySeconds, in: 0...86_400)
    static let computerMode = Option.choice(
        "--computer-mode",
        "nikon-z: \"connect to computer\" mode, where GetObjectInfo, GetObject and GetPartialObject answer AccessDenied and "
            + "only GetPartialObjectEx and GetObjectSize work; off = smart-device mode",
        onOff, default: SimQuirks().computerMode)
    static let memoryObjectInfo = Option.choice(
        "--memory-object-info",
        "canon-*: whether GetObjectInfo works on a shot kept in camera memory (default: fails on canon-r5m2, works on the "
            + "others)",
        [(word: "fails", value: true), (word: "works", value: false)])
    static let sdioHandshake = Option.choice(
        "--sdio-handshake",
        "sony: stop answering when anything but OpenSession, GetDeviceInfo and the SDIO handshake comes first",
        [(word: "required", value: true), (word: "optional", value: false)], default: SimQuirks().sdioHandshakeRequired)
    static let sessionsPerActivation = Option.integer(
        "--sessions-per-activation", "N",
        "sessions served before the body must be activated again (a line \"activate\" on stdin); then clients get InitFail "
            + "\"busy\" (default 1 for sony, 0 = no limit for the others)",
        in: 0...1000)
    static let zEvents = Option.choice(
        "--z-events",
        "nikon-z-strict: ObjectAdded pushed on the event channel, or answered to a polled GetEvent/GetEventEx (the public "
            + "record does not say which a Z does)",
        [(word: "pushed", value: NikonZStrictBehaviour.Events.pushed), (word: "polled", value: .polled)],
        default: SimQuirks().zEvents)
    static let sdioVersion = Option.choice(
        "--sdio-version",
        "sony: the SDIO protocol answered; 200 is a body that takes a new shutter speed only in steps (SetControlDeviceB) "
            + "and ignores SetControlDeviceA on it, as libgphoto2 says of the A7R4",
        [(word: "300", value: UInt16(300)), (word: "200", value: 200)], default: SimQuirks().sdioVersion)
    static let sonyAllProperties = Option.choice(
        "--sony-all-props",
        "sony: hand every property out in one SDIO_GetAllExtDevicePropInfo (0x9209) reply, as real bodies do, and refuse "
            + "the standard GetDevicePropDesc/Value",
        onOff, default: SimQuirks().sonyAllProperties)
    static let probeSpendsActivation = Option.choice(
        "--probe-spends-activation",
        "a bare TCP connection closed without a handshake (a scan's) counts as a session for --sessions-per-activation, as "
            + "on a body that serves one connection at a time",
        onOff, default: SimQuirks().probeSpendsActivation)

    static let canonChangeRecords = Option.choice(
        "--canon-change-events",
        "canon-*: what a shot protected or rated on the body raises: ObjectInfoChangedEx (0xC187; 0xC1B7 on canon-r5m2) "
            + "as older firmware, ObjectContentChanged (0xC188) as newer, or both as some bodies (libgphoto2 PR 261)",
        [(word: "info", value: CanonEOSBehaviour.ChangeRecords.info), (word: "content", value: .content), (word: "both", value: .both)],
        default: SimQuirks().canonChangeRecords)

    static let canonProtection = Option.choice(
        "--canon-protection",
        "canon-*: where a shot's protection shows: in GetObjectInfo's ProtectionStatus and GetObjectInfoEx's flags "
            + "(both), or in the flags only (listing), the place libgphoto2 reads it on EOS bodies (ptp.c ptp_list_folder_eos)",
        [(word: "both", value: true), (word: "listing", value: false)], default: SimQuirks().canonProtectionInObjectInfo)

    private static let onOff = [(word: "on", value: true), (word: "off", value: false)]

    static let section = CommandSpec.Section(
        title: "VENDOR QUIRKS (each on in its profile as real bodies behave; switch off to compare)",
        options: [
            objectInfoBusy.spec, computerMode.spec, memoryObjectInfo.spec, sdioHandshake.spec, sessionsPerActivation.spec,
            zEvents.spec, sdioVersion.spec, sonyAllProperties.spec, probeSpendsActivation.spec, canonChangeRecords.spec,
            canonProtection.spec,
        ])

    /// The quirks as `args` switches them.
    init(_ args: Arguments) throws(CommandFailure) {
        self.init()
        objectInfoBusySeconds = try args.value(Self.objectInfoBusy) ?? objectInfoBusySeconds
        computerMode = try args.value(Self.computerMode) ?? computerMode
        memoryObjectInfoFails = try args.value(Self.memoryObjectInfo)
        sdioHandshakeRequired = try args.value(Self.sdioHandshake) ?? sdioHandshakeRequired
        sessionsPerActivation = try args.value(Self.sessionsPerActivation)
        zEvents = try args.value(Self.zEvents) ?? zEvents
        sdioVersion = try args.value(Self.sdioVersion) ?? sdioVersion
        sonyAllProperties = try args.value(Self.sonyAllProperties) ?? sonyAllProperties
        probeSpendsActivation = try args.value(Self.probeSpendsActivation) ?? probeSpendsActivation
        canonChangeRecords = try args.value(Self.canonChangeRecords) ?? canonChangeRecords
        canonProtectionInObjectInfo = try args.value(Self.canonProtection) ?? canonProtectionInObjectInfo
    }
}
