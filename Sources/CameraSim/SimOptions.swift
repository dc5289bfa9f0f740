import CommandLineOptions
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

    /// Parses `arguments` (without the command name); the error names the option and what it takes.
    public static func parse(_ arguments: [String]) throws(CommandFailure) -> SimOptions {
        let args = try Arguments(arguments, spec.options, command: "camera-sim")
        if let stray = args.positionals.first {
            throw CommandFailure(.usage, "unexpected argument '\(stray)' (see relay camera-sim --help)")
        }
        var options = SimOptions()
        options.profile = try args.required(profile, hint: HelpText.either(SimProfile.allCases.map(\.rawValue)))
        options.host = try args.value(host) ?? options.host
        options.port = try args.value(port) ?? options.port
        options.photosDirectory = try args.value(photos)
        options.cardDirectory = try args.value(card)
        options.firstHandle = try args.value(handleBase) ?? options.firstHandle
        options.initialPhotos = try args.value(initialPhotos) ?? options.initialPhotos
        options.photoSize = try args.value(photoSize).map { Int($0) } ?? options.photoSize
        if let dimensions = try args.value(photoDimensions) {
            (options.photoWidth, options.photoHeight) = (dimensions.width, dimensions.height)
        }
        options.raw = args.has(raw)
        options.rawSize = try args.value(rawSize).map { Int($0) } ?? options.rawSize
        options.shootEvery = try args.value(shootEvery)
        options.burst = try args.value(burst) ?? options.burst
        options.exportDirectory = try args.value(export)
        options.seed = try args.value(seed) ?? options.seed
        options.propertyChangeEvery = try args.value(propertyEvery).flatMap { $0 == 0 ? nil : $0 }
        options.propertyFlood = try args.value(SimFaults.propertyFlood) ?? options.propertyFlood
        options.idleTimeout = try args.value(idleTimeout) ?? options.idleTimeout
        options.remoteCapture = !args.has(noRemoteCapture)
        options.exposureMode = try args.value(exposureMode) ?? options.exposureMode
        options.pairing = try args.value(requireGUID) ?? options.pairing
        options.verbose = args.has(verbose)
        options.ssdpPort = try args.value(ssdp)
        options.faults = try SimFaults(args)
        options.quirks = try SimQuirks(args)
        options.resources = try SimResourceOptions(args)
        try options.validate(captureToMemory: try args.value(captureTo))
        return options
    }

    /// The rules between options: one card source, SSDP only for a body that announces itself,
    /// and a capture target the profile can choose.
    private mutating func validate(captureToMemory asked: Bool?) throws(CommandFailure) {
        if photosDirectory != nil, let cardDirectory {
            throw CommandFailure.badValue("--card", cardDirectory, expected: "no --photos beside it (the card holds its own photos)")
        }
        if let ssdpPort, profile.ssdpServiceType == nil {
            throw CommandFailure.badValue(
                "--ssdp", String(ssdpPort),
                expected: "a profile that announces itself over SSDP (\(profile.rawValue) bodies do not)")
        }
        let byDefault = profile.capturesToMemoryByDefault
        captureToMemory = asked ?? byDefault
        if captureToMemory != byDefault && !profile.canChooseCaptureTarget {
            throw CommandFailure.badValue(
                "--capture-to", byDefault ? "card" : "memory",
                expected: "\(byDefault ? "memory" : "card") (\(profile.rawValue) keeps shots only there)")
        }
    }
}
