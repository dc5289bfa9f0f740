import Foundation

/// How each vendor's bodies encode a shutter speed in their exposure-time property, both ways.
/// Decoding gives the speed the body shows (its nominal value); encoding gives the value to
/// write, nil where the vendor has no code for the speed.
public enum ShutterSpeedCodes {
    // MARK: - Canon EOS: 0xD102, Canon's APEX-like code

    /// Canon's codes, 8 per stop with 0x38 at 1 s, and the speed the body shows for each: the
    /// third- and half-stop codes of libgphoto2's `canon_shutterspeed` table (config.c), which
    /// also names 0x0C bulb and 0x00 auto.
    static let canon: [(code: UInt32, speed: ShutterSpeed)] = [
        (0x10, "30"), (0x13, "25"), (0x14, "20"), (0x15, "20"), (0x18, "15"), (0x1B, "13"), (0x1C, "10"),
        (0x1D, "10"), (0x20, "8"), (0x23, "6"), (0x24, "6"), (0x25, "5"), (0x28, "4"), (0x2B, "3.2"), (0x2C, "3"),
        (0x2D, "2.5"), (0x30, "2"), (0x33, "1.6"), (0x34, "1.5"), (0x35, "1.3"), (0x38, "1"), (0x3B, "0.8"),
        (0x3C, "0.7"), (0x3D, "0.6"), (0x40, "0.5"), (0x43, "0.4"), (0x44, "0.3"), (0x45, "0.3"), (0x48, "1/4"),
        (0x4B, "1/5"), (0x4C, "1/6"), (0x4D, "1/6"), (0x50, "1/8"), (0x53, "1/10"), (0x54, "1/10"), (0x55, "1/13"),
        (0x58, "1/15"), (0x5B, "1/20"), (0x5C, "1/20"), (0x5D, "1/25"), (0x60, "1/30"), (0x63, "1/40"),
        (0x64, "1/45"), (0x65, "1/50"), (0x68, "1/60"), (0x6B, "1/80"), (0x6C, "1/90"), (0x6D, "1/100"),
        (0x70, "1/125"), (0x73, "1/160"), (0x74, "1/180"), (0x75, "1/200"), (0x78, "1/250"), (0x7B, "1/320"),
        (0x7C, "1/350"), (0x7D, "1/400"), (0x80, "1/500"), (0x83, "1/640"), (0x84, "1/750"), (0x85, "1/800"),
        (0x88, "1/1000"), (0x8B, "1/1250"), (0x8C, "1/1500"), (0x8D, "1/1600"), (0x90, "1/2000"), (0x93, "1/2500"),
        (0x94, "1/3000"), (0x95, "1/3200"), (0x98, "1/4000"), (0x9B, "1/5000"), (0x9C, "1/6000"), (0x9D, "1/6400"),
        (0xA0, "1/8000"), (0xA8, "1/16000"),
    ].compactMap { code, label in (try? ShutterSpeed.parse(label)).map { (UInt32(code), $0) } }

    /// The speed a Canon code shows; nil for bulb, auto and codes outside the table.
    public static func canonSpeed(code: UInt32) -> ShutterSpeed? {
        canon.first { $0.code == code }?.speed
    }

    /// Canon's code for `speed`: the third-stop code where the body has two for the same label
    /// (20", 10", 6", 0.3", 1/6, 1/10, 1/20 have a half-stop twin).
    public static func canonCode(for speed: ShutterSpeed) -> UInt32? {
        let codes = canon.filter { $0.speed == speed }.map(\.code)
        return codes.first { $0 % 8 == 3 || $0 % 8 == 5 || $0 % 8 == 0 } ?? codes.first
    }

    // MARK: - Nikon and standard PTP: ExposureTime 0x500D, in 0.1 ms

    /// Nikon's ExposureTime values for bulb and time (libgphoto2 config.c `_get_ExpTime`).
    public static let nikonBulb: UInt32 = 0xFFFF_FFFF
    public static let nikonTime: UInt32 = 0xFFFF_FFFD

    /// The ExposureTime values a Nikon D5100 offers, 1/4000 to 30" (libgphoto2 issue 94): the
    /// speed in units of 0.0001 s (ISO 15740), cut to a whole number (1/4000 is 2, 1/60 is 166),
    /// with 0.8", 0.6", 0.3" and 3.2" as 1/1.3, 1/1.6, 1/3 and 3" (7692, 6250, 3333, 30000).
    public static let nikonD5100ExposureTimes: [UInt32] = [
        2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 31, 40, 50, 62, 80, 100, 125, 166, 200, 250, 333, 400, 500, 666, 769,
        1000, 1250, 1666, 2000, 2500, 3333, 4000, 5000, 6250, 7692, 10000, 13000, 16000, 20000, 25000, 30000, 40000,
        50000, 60000, 80000, 100_000, 130_000, 150_000, 200_000, 250_000, 300_000,
    ]

    /// The speed an ExposureTime value shows: the third-stop mark that cuts to it (of two, the
    /// longer: 2 is 1/4000 on a D5100, though 1/5000 also cuts to 2), else the mark within a
    /// sixth of a stop, else the exact value.
    public static func exposureTimeSpeed(_ value: UInt32) -> ShutterSpeed? {
        guard value != 0, value != nikonBulb, value != nikonTime else { return nil }
        if let mark = ShutterSpeed.thirdStops.first(where: { exposureTimeValue($0) == value }) { return mark }
        let seconds = Double(value) / 10_000
        if let mark = ShutterSpeed(seconds: seconds)?.nearest(in: ShutterSpeed.thirdStops),
            abs(log2(mark.seconds / seconds)) < 1.0 / 6
        {
            return mark
        }
        return ShutterSpeed(seconds: seconds)
    }

    /// The ExposureTime value for `speed`: 0.1 ms units cut to a whole number (at least 1), the
    /// marks 0.8", 0.6", 0.3" and 3.2" as Nikon writes them (1/1.3, 1/1.6, 1/3, 3").
    public static func exposureTimeValue(_ speed: ShutterSpeed) -> UInt32 {
        let seconds: Double
        if speed == ShutterSpeed(numerator: 4, denominator: 5) {
            seconds = 1 / 1.3
        } else if speed == ShutterSpeed(numerator: 3, denominator: 5) {
            seconds = 1 / 1.6
        } else if speed == ShutterSpeed(numerator: 3, denominator: 10) {
            seconds = 1.0 / 3
        } else if speed == ShutterSpeed(numerator: 16, denominator: 5) {
            seconds = 3
        } else {
            seconds = speed.seconds
        }
        return UInt32(max(1, min(Double(nikonTime - 1), (seconds * 10_000 + 1e-6).rounded(.down))))
    }

    // MARK: - Sony: 0xD20D, numerator << 16 | denominator

    /// The speed a Sony value shows (libgphoto2 config.c `_get_Sony_ShutterSpeed`: 300/10 is 30").
    public static func sonySpeed(_ value: UInt32) -> ShutterSpeed? {
        ShutterSpeed(numerator: value >> 16, denominator: value & 0xFFFF)
    }

    /// Sony's value for `speed`: whole seconds as tenths (30" is 300/10, as the bodies report it
    /// and libgphoto2 `_put_Sony_ShutterSpeed` writes it), fractions as they are.
    public static func sonyValue(_ speed: ShutterSpeed) -> UInt32? {
        let (numerator, denominator) =
            speed.denominator == 1 ? (speed.numerator * 10, UInt32(10)) : (speed.numerator, speed.denominator)
        guard numerator <= 0xFFFF, denominator <= 0xFFFF else { return nil }
        return numerator << 16 | denominator
    }
}

/// A body's exposure mode, as far as bracketing cares: whether relay may set the shutter speed.
public enum ExposureMode: Equatable, Sendable, CustomStringConvertible {
    case manual, shutterPriority, aperturePriority, program, bulb
    /// Any other mode (auto, scene, movie …), with the body's name for it.
    case other(String)

    /// M and S/Tv take a set shutter speed; the others choose it themselves.
    public var allowsSettingShutterSpeed: Bool { self == .manual || self == .shutterPriority }

    public var description: String {
        switch self {
        case .manual: return "M"
        case .shutterPriority: return "S/Tv"
        case .aperturePriority: return "A/Av"
        case .program: return "P"
        case .bulb: return "bulb"
        case .other(let name): return name
        }
    }

    /// ExposureProgramMode 0x500E (ISO 15740; Nikon and Sony): 1 M, 2 P, 3 A, 4 S; Nikon's
    /// 0x8010 and Sony's 0x8000/0x8001 are auto (libgphoto2 config.c `exposure_program_modes`).
    public static func standard(_ value: UInt16) -> ExposureMode {
        switch value {
        case 1: return .manual
        case 2: return .program
        case 3: return .aperturePriority
        case 4: return .shutterPriority
        case 0x8000, 0x8001, 0x8010: return .other("auto")
        default: return .other(String(format: "mode 0x%04X", value))
        }
    }

    /// ExposureProgramMode's value for this mode (the inverse of `standard`; others are P).
    public var standardValue: UInt16 {
        switch self {
        case .manual: return 1
        case .aperturePriority: return 3
        case .shutterPriority: return 4
        default: return 2
        }
    }

    /// Canon's AutoExposureMode value for this mode (the inverse of `canonEOS`; others are P).
    public var canonEOSValue: UInt32 {
        switch self {
        case .manual: return 3
        case .shutterPriority: return 1
        case .aperturePriority: return 2
        case .bulb: return 4
        default: return 0
        }
    }

    /// Canon EOS AutoExposureMode 0xD105: 0 P, 1 Tv, 2 Av, 3 M, 4 bulb, 9 and 0x16 auto
    /// (libgphoto2 config.c `canon_eos_autoexposuremode`).
    public static func canonEOS(_ value: UInt32) -> ExposureMode {
        switch value {
        case 0: return .program
        case 1: return .shutterPriority
        case 2: return .aperturePriority
        case 3: return .manual
        case 4: return .bulb
        case 9, 0x16: return .other("auto")
        default: return .other(String(format: "mode 0x%02X", value))
        }
    }
}
