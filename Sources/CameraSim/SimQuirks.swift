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

    public init() {}

    /// The flags parsed here.
    static let flags: Set<String> = [
        "--object-info-busy", "--computer-mode", "--memory-object-info", "--sdio-handshake", "--sessions-per-activation",
        "--z-events", "--probe-spends-activation", "--sdio-version", "--sony-all-props",
    ]

    /// Sets the quirk `flag` names from its value.
    mutating func set(_ flag: String, to value: String) throws {
        func choice(_ on: String, _ off: String) throws -> Bool {
            switch value {
            case on: return true
            case off: return false
            default: throw SimOptionsError.invalidValue(flag: flag, value: value, expected: "\(on) or \(off)")
            }
        }
        switch flag {
        case "--object-info-busy": objectInfoBusySeconds = try SimOptions.duration(value, flag: flag, minimum: 0)
        case "--computer-mode": computerMode = try choice("on", "off")
        case "--memory-object-info": memoryObjectInfoFails = try choice("fails", "works")
        case "--sdio-handshake": sdioHandshakeRequired = try choice("required", "optional")
        case "--sessions-per-activation": sessionsPerActivation = try SimOptions.integer(value, flag: flag, range: 0...1000)
        case "--z-events": zEvents = try choice("polled", "pushed") ? .polled : .pushed
        case "--probe-spends-activation": probeSpendsActivation = try choice("on", "off")
        case "--sdio-version": sdioVersion = try choice("200", "300") ? 200 : 300
        case "--sony-all-props": sonyAllProperties = try choice("on", "off")
        default: throw SimOptionsError.unknownFlag(flag)
        }
    }

    static let usage = """
        Vendor quirks (each on in its profile as real bodies behave; switch off to compare):
          --object-info-busy DURATION  nikon, nikon-z: answer GeneralError to GetObjectInfo for this long
                                    after a photo is announced, as Nikon bodies do for up to about 1 s
                                    (default 0: off, as relay's older tether ends the session on it)
          --computer-mode on|off    nikon-z: "connect to computer" mode, where GetObjectInfo, GetObject and
                                    GetPartialObject answer AccessDenied and only GetPartialObjectEx and
                                    GetObjectSize work (default on); off = smart-device mode
          --memory-object-info fails|works  canon-*: whether GetObjectInfo works on a shot kept in
                                    camera memory (default: fails on canon-r5m2, works on the others)
          --sdio-handshake required|optional  sony: stop answering when anything but OpenSession,
                                    GetDeviceInfo and the SDIO handshake comes first (default required)
          --sessions-per-activation N  sessions served before the body must be activated again (a line
                                    "activate" on stdin); then clients get InitFail "busy"
                                    (default 1 for sony, 0 = no limit for the others)
          --z-events pushed|polled  nikon-z-strict: ObjectAdded pushed on the event channel, or
                                    answered to a polled GetEvent/GetEventEx (the public record
                                    does not say which a Z does; default pushed)
          --sdio-version 300|200    sony: the SDIO protocol answered; 200 is a body that takes a new
                                    shutter speed only in steps (SetControlDeviceB) and ignores
                                    SetControlDeviceA on it, as libgphoto2 says of the A7R4 (default 300)
          --sony-all-props on|off   sony: hand every property out in one SDIO_GetAllExtDevicePropInfo
                                    (0x9209) reply, as real bodies do, and refuse the standard
                                    GetDevicePropDesc/Value (default off)
          --probe-spends-activation on|off  a bare TCP connection closed without a handshake (a
                                    scan's) counts as a session for --sessions-per-activation, as on
                                    a body that serves one connection at a time (default off)
        """
}
