import Foundation
import PTPWire
import RelayCore

/// Everything `relay camera-sim` can be told on its command line. Parsing is pure so that every
/// bad flag is reported the same way (naming the flag and what it expects) and tested without
/// starting a server.
public struct SimOptions: Sendable, Equatable {
    public var profile: SimProfile = .canonEOS
    public var host = "127.0.0.1"
    public var port: UInt16 = 15740
    /// Folder whose photos are on the card at start (and are reused, in turn, for later shots).
    public var photosDirectory: String?
    /// The card itself, kept across runs (`--card`): its photos are on the card at start, every
    /// new shot is made fresh and written there, and file numbers continue after its highest.
    public var cardDirectory: String?
    /// The first object handle the body hands out after it is switched on (`--handle-base`).
    public var firstHandle: UInt32 = 0x0000_1000
    /// Generated photos on the card at start when no folder is given.
    public var initialPhotos = 3
    /// Approximate byte size of each generated JPEG.
    public var photoSize = 200_000
    public var photoWidth = 640
    public var photoHeight = 480
    /// Whether every shot also makes a RAW companion.
    public var raw = false
    public var rawSize = 400_000
    /// Shoot on a schedule, every this many seconds.
    public var shootEvery: Double?
    /// Frames per shot (schedule, trigger or capture operation).
    public var burst = 1
    /// Keep new shots in camera memory (Canon RequestObjectTransfer, Sony 0xFFFFC001) instead of
    /// the card; the profile's default unless `--capture-to` says.
    public var captureToMemory = false
    /// Folder where a copy of every photo the simulator makes is written, for comparisons.
    public var exportDirectory: String?
    public var seed: UInt64 = 1
    public var faults = SimFaults()
    /// Canon: a property change (the battery level) is reported this often.
    public var propertyChangeEvery: Double? = 20
    /// Canon: PropValueChanged records in every GetEvent reply (a body that floods its
    /// properties on every poll).
    public var propertyFlood = 0
    /// Drop a client that sent no operation for this long (bodies drop idle clients after about
    /// 30 s); 0 never drops.
    public var idleTimeout: Double = 30
    /// Log every operation on stderr.
    public var verbose = false
    /// Lists and answers the capture operations (without: a body that cannot be fired remotely).
    public var remoteCapture = true
    /// The profile's vendor quirks, as switched by their flags.
    public var quirks = SimQuirks()
    /// Accept only this client GUID, as a paired body does (`--require-guid`).
    public var pairing = SimPairing()
    /// Answer SSDP searches on this UDP port of `host` (0: any free port); nil: silent.
    public var ssdpPort: UInt16?
    /// The battery and card: how full, how fast they run down.
    public var resources = SimResourceOptions()
    /// The mode dial (`--exposure-mode`): bracketing sets the speed only in M and S.
    public var exposureMode = ExposureMode.manual

    public init() {}

    /// Parses `arguments` (without the command name). Throws `SimOptionsError` naming the flag.
    public static func parse(_ arguments: [String]) throws -> SimOptions {
        var options = SimOptions()
        var sawProfile = false
        var captureTarget: Bool?
        var index = 0
        func value(_ flag: String) throws -> String {
            index += 1
            guard index < arguments.count else { throw SimOptionsError.missingValue(flag: flag) }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            var flag = argument
            var inline: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                flag = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            func text() throws -> String {
                if let inline { return inline }
                return try value(flag)
            }
            switch flag {
            case "--help", "-h":
                throw SimOptionsError.helpRequested
            case "--profile":
                let name = try text()
                guard let profile = SimProfile(rawValue: name) else {
                    throw SimOptionsError.invalidValue(
                        flag: flag, value: name,
                        expected: SimProfile.allCases.map(\.rawValue).joined(separator: ", "))
                }
                options.profile = profile
                sawProfile = true
            case "--host":
                options.host = try text()
            case "--port":
                options.port = UInt16(truncatingIfNeeded: try integer(try text(), flag: flag, range: 0...65535))
            case "--photos":
                options.photosDirectory = try text()
            case "--card":
                options.cardDirectory = try text()
            case "--handle-base":
                let raw = try text()
                let digits = raw.lowercased().hasPrefix("0x") ? String(raw.dropFirst(2)) : raw
                guard let base = UInt32(digits, radix: 16), base > 0, base < 0xFFFF_0000 else {
                    throw SimOptionsError.invalidValue(flag: flag, value: raw, expected: "a handle in hex, 1 to FFFEFFFF (e.g. 0x1000)")
                }
                options.firstHandle = base
            case "--initial-photos":
                options.initialPhotos = try integer(try text(), flag: flag, range: 0...10_000)
            case "--photo-size":
                options.photoSize = try byteCount(try text(), flag: flag, range: 0...(512 << 20))
            case "--photo-dimensions":
                let raw = try text()
                let parts = raw.lowercased().split(separator: "x")
                guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]),
                    (8...4096).contains(w), (8...4096).contains(h)
                else {
                    throw SimOptionsError.invalidValue(flag: flag, value: raw, expected: "WIDTHxHEIGHT, each 8…4096")
                }
                options.photoWidth = w
                options.photoHeight = h
            case "--raw":
                options.raw = true
            case "--raw-size":
                options.rawSize = try byteCount(try text(), flag: flag, range: 16...(512 << 20))
            case "--shoot-every":
                options.shootEvery = try duration(try text(), flag: flag, minimum: 0.05)
            case "--burst":
                options.burst = try integer(try text(), flag: flag, range: 1...100)
            case "--capture-to":
                let raw = try text()
                switch raw {
                case "card": captureTarget = false
                case "memory": captureTarget = true
                default: throw SimOptionsError.invalidValue(flag: flag, value: raw, expected: "card or memory")
                }
            case "--export":
                options.exportDirectory = try text()
            case "--seed":
                let raw = try text()
                guard let seed = UInt64(raw) else {
                    throw SimOptionsError.invalidValue(flag: flag, value: raw, expected: "a whole number ≥ 0")
                }
                options.seed = seed
            case "--rate-limit":
                options.faults.bytesPerSecond = try byteCount(try text(), flag: flag, range: 1...(1 << 40))
            case "--random-split":
                options.faults.randomSplit = true
            case "--busy-after-connect":
                options.faults.busyAfterConnect = try duration(try text(), flag: flag, minimum: 0)
            case "--busy-rate":
                options.faults.busyRate = try fraction(try text(), flag: flag)
            case "--drop-after-bytes":
                options.faults.dropAfterBytes = try byteCount(try text(), flag: flag, range: 0...(1 << 40))
            case "--drop-during-transfer":
                options.faults.dropDuringTransfer = try integer(try text(), flag: flag, range: 1...1_000_000)
            case "--property-every":
                let raw = try text()
                options.propertyChangeEvery = raw == "0" ? nil : try duration(raw, flag: flag, minimum: 0.05)
            case "--property-flood":
                options.propertyFlood = try integer(try text(), flag: flag, range: 0...1000)
            case "--exposure-mode":
                options.exposureMode = try SimExposure.mode(try text())
            case "--idle-timeout":
                options.idleTimeout = try duration(try text(), flag: flag, minimum: 0)
            case "--lose-events":
                options.faults.loseEvents = try fraction(try text(), flag: flag)
            case "--capture-answers":
                let raw = try text()
                guard !raw.isEmpty, raw.allSatisfy({ ".BN".contains($0) }) else {
                    throw SimOptionsError.invalidValue(
                        flag: flag, value: raw, expected: "letters . (as usual), B (DeviceBusy) or N (no photo)")
                }
                options.faults.captureAnswers = raw
            case "--hostile":
                let raw = try text()
                guard let mode = SimHostility(rawValue: raw) else {
                    throw SimOptionsError.invalidValue(
                        flag: flag, value: raw,
                        expected: SimHostility.allCases.map(\.rawValue).joined(separator: ", "))
                }
                options.faults.hostility = mode
            case "--no-remote-capture":
                options.remoteCapture = false
            case "--drop-every":
                options.faults.dropEvery = try byteCount(try text(), flag: flag, range: 1...(1 << 40))
            case "--event-timeout":
                options.faults.eventChannelTimeout = try duration(try text(), flag: flag, minimum: 0.1)
            case "--require-guid":
                options.pairing = try SimPairing(requiring: try text(), flag: flag)
            case "--ssdp":
                options.ssdpPort = UInt16(try integer(try text(), flag: flag, range: 0...65535))
            case "--verbose", "-v":
                options.verbose = true
            default:
                if SimResourceOptions.flags.contains(flag) {
                    try options.resources.set(flag, to: try text())
                    break
                }
                guard SimQuirks.flags.contains(flag) else { throw SimOptionsError.unknownFlag(argument) }
                try options.quirks.set(flag, to: try text())
            }
            index += 1
        }
        guard sawProfile else { throw SimOptionsError.missingProfile }
        if options.photosDirectory != nil && options.cardDirectory != nil {
            throw SimOptionsError.invalidValue(
                flag: "--card", value: options.cardDirectory ?? "", expected: "no --photos beside it (the card holds its own photos)")
        }
        if options.ssdpPort != nil && options.profile.ssdpServiceType == nil {
            throw SimOptionsError.invalidValue(
                flag: "--ssdp", value: String(options.ssdpPort ?? 0),
                expected: "a profile that announces itself over SSDP (\(options.profile.rawValue) bodies do not)")
        }
        let byDefault = options.profile.capturesToMemoryByDefault
        options.captureToMemory = captureTarget ?? byDefault
        if options.captureToMemory != byDefault && !options.profile.canChooseCaptureTarget {
            let allowed = byDefault ? "memory" : "card"
            throw SimOptionsError.invalidValue(
                flag: "--capture-to", value: byDefault ? "card" : "memory",
                expected: "\(allowed) (\(options.profile.rawValue) keeps shots only there)")
        }
        return options
    }

    static func integer(_ raw: String, flag: String, range: ClosedRange<Int>) throws -> Int {
        guard let number = Int(raw), range.contains(number) else {
            throw SimOptionsError.invalidValue(
                flag: flag, value: raw,
                expected: "a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// A fraction of operations or photos, from 0 to 1.
    static func fraction(_ raw: String, flag: String) throws -> Double {
        guard let value = Double(raw), value >= 0, value <= 1 else {
            throw SimOptionsError.invalidValue(flag: flag, value: raw, expected: "a fraction from 0 to 1")
        }
        return value
    }

    /// Bytes in relay's one size grammar (`ByteSizeText`: 200k is 200 000, 256KiB is 262 144).
    static func byteCount(_ raw: String, flag: String, range: ClosedRange<Int>) throws -> Int {
        do {
            let bytes = try ByteSizeText.parse(raw, option: flag, in: Int64(range.lowerBound)...Int64(range.upperBound))
            return Int(bytes)
        } catch .notASize {
            throw SimOptionsError.invalidValue(flag: flag, value: raw, expected: ByteSizeText.forms)
        } catch {
            throw SimOptionsError.invalidValue(
                flag: flag, value: raw,
                expected: "a size from "
                    + "\(ByteSizeText.format(Int64(range.lowerBound))) to \(ByteSizeText.format(Int64(range.upperBound)))")
        }
    }

    /// Seconds in relay's one duration grammar (`DurationText`: 2s, 500ms, 1.5, 1m), at most a day.
    static func duration(_ raw: String, flag: String, minimum: Double) throws -> Double {
        do {
            return try DurationText.parse(raw, option: flag, in: minimum...86_400)
        } catch .notADuration {
            throw SimOptionsError.invalidValue(flag: flag, value: raw, expected: DurationText.forms)
        } catch {
            throw SimOptionsError.invalidValue(
                flag: flag, value: raw,
                expected: "a duration from "
                    + "\(DurationText.format(minimum)) to \(DurationText.format(86_400))")
        }
    }
}

/// Fault injection, each off unless asked for; all randomness comes from `--seed`.
public struct SimFaults: Sendable, Equatable {
    public var bytesPerSecond: Int?
    public var randomSplit = false
    public var busyAfterConnect: Double = 0
    public var busyRate: Double = 0
    public var dropAfterBytes: Int?
    public var dropDuringTransfer: Int?
    public var dropEvery: Int?
    /// Fraction of new photos the camera never announces (a lost event).
    public var loseEvents: Double = 0
    /// How the camera answers its shutter releases, in order: `.` as usual, `B` DeviceBusy
    /// (no shot), `N` OK but no photo; after the last letter, as usual.
    public var captureAnswers = ""
    /// A protocol violation the camera commits on purpose.
    public var hostility: SimHostility?
    public var eventChannelTimeout: Double = 10

    public init() {}
}

/// A bad command line, described so that the user can fix it.
public enum SimOptionsError: Error, Equatable, CustomStringConvertible {
    case helpRequested
    case unknownFlag(String)
    case missingValue(flag: String)
    case invalidValue(flag: String, value: String, expected: String)
    case missingProfile

    public var description: String {
        switch self {
        case .helpRequested: return "help requested"
        case .unknownFlag(let flag): return "unknown flag '\(flag)' (see relay camera-sim --help)"
        case .missingValue(let flag): return "\(flag) needs a value"
        case .invalidValue(let flag, let value, let expected): return "\(flag) '\(value)': expected \(expected)"
        case .missingProfile:
            return "--profile is required: " + SimProfile.allCases.map(\.rawValue).joined(separator: ", ")
        }
    }
}
