import CommandLineOptions
import RelayCore

/// `relay camera-sim`'s options, declared once with relay's own ``Option`` types: its parser, its
/// help and relay's bash completion read these, and each default is the one `SimOptions()` has.
extension SimOptions {
    private static let defaults = SimOptions()

    static let profile = Option.choice(
        "--profile", "the body to be (required)", SimProfile.allCases.map { (word: $0.rawValue, value: $0) })
    static let host = Option.text("--host", "ADDRESS", "address to listen on", default: defaults.host)
    static let port = Option.integer(
        "--port", "N", "port; 0 takes any free port, printed when ready", default: defaults.port, in: 0...UInt16.max)
    static let photos = Option.text(
        "--photos", "DIR", "photos on the card at start (JPEG and RAW files of DIR); later shots reuse them in turn under new names")
    static let card = Option.text(
        "--card", "DIR",
        "the card, kept across runs: its photos are on the card at start, every shot is made fresh and written there, and "
            + "file numbers (and the Nikon shutter count) go on after its highest, as a body's do after it is switched off and on")
    static let handleBase = Option.value(
        "--handle-base", "HEX",
        "the first object handle given out after the body is switched on: handles count up from it in card order, so a "
            + "body restarted with a lower base gives new photos handles that earlier ones had (PTP promises a handle only "
            + "for one session)",
        default: defaults.firstHandle, defaultText: "0x" + String(defaults.firstHandle, radix: 16)
    ) { raw throws(CommandFailure) in
        let digits = raw.lowercased().hasPrefix("0x") ? String(raw.dropFirst(2)) : raw
        guard let base = UInt32(digits, radix: 16), base > 0, base < 0xFFFF_0000 else {
            throw CommandFailure.badValue("--handle-base", raw, expected: "a handle in hex, 1 to FFFEFFFF (e.g. 0x1000)")
        }
        return base
    }
    static let initialPhotos = Option.integer(
        "--initial-photos", "N", "generated photos on the card at start without --photos or --card", default: defaults.initialPhotos,
        in: 0...10_000)
    static let photoSize = Option.size(
        "--photo-size", "approximate size of each generated JPEG", default: Int64(defaults.photoSize), in: 0...(512 << 20))
    static let photoDimensions = Option.value(
        "--photo-dimensions", "WxH", "pixel size of generated JPEGs", default: (width: defaults.photoWidth, height: defaults.photoHeight),
        defaultText: "\(defaults.photoWidth)x\(defaults.photoHeight)"
    ) { raw throws(CommandFailure) in
        let parts = raw.lowercased().split(separator: "x")
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), (8...4096).contains(width),
            (8...4096).contains(height)
        else { throw CommandFailure.badValue("--photo-dimensions", raw, expected: "WIDTHxHEIGHT, each 8…4096") }
        return (width: width, height: height)
    }
    static let raw = Flag("--raw", "every shot also makes a RAW companion (.CR3, .NEF or .ARW)")
    static let rawSize = Option.size(
        "--raw-size", "size of each RAW companion", default: Int64(defaults.rawSize), in: 16...(512 << 20))
    static let shootEvery = Option.duration("--shoot-every", "shoot on a schedule (e.g. 2s, 500ms)", in: 0.05...86_400)
    static let burst = Option.integer("--burst", "N", "frames per shot", default: defaults.burst, in: 1...100)
    static let captureTo = Option.choice(
        "--capture-to",
        "canon-*: keep new shots in camera memory, announced with RequestObjectTransfer and removed after TransferComplete "
            + "(default card; memory on canon-r5m2 and, always, sony)",
        [(word: "card", value: false), (word: "memory", value: true)])
    static let export = Option.text("--export", "DIR", "write a copy of every photo the simulator makes into DIR")
    static let seed = Option.integer(
        "--seed", "N", "seed for photos and faults: same seed, same run", default: defaults.seed, in: 0...UInt64.max)
    static let propertyEvery = Option.value(
        "--property-every", "DURATION", "canon-eos: report a property change (battery level) this often; 0 never",
        default: defaults.propertyChangeEvery ?? 0, defaultText: defaults.propertyChangeEvery.map(DurationText.format) ?? "0"
    ) { raw throws(CommandFailure) in
        raw == "0" ? 0 : try duration(raw, option: "--property-every", in: 0.05...86_400)
    }
    static let idleTimeout = Option.duration(
        "--idle-timeout", "drop a client that sent no operation for this long, as bodies do; 0 never",
        default: defaults.idleTimeout, in: 0...86_400)
    static let noRemoteCapture = Flag("--no-remote-capture", "list no capture operation (a body that cannot be fired remotely)")
    static let exposureMode = Option.value(
        "--exposure-mode", "M|S|A|P",
        "the mode dial (S is also Tv, A Av): the shutter speed can be set in M and S; each shot's JPEG carries the speed in "
            + "effect as EXIF ExposureTime",
        default: defaults.exposureMode, defaultText: "M", read: SimExposure.mode)
    static let requireGUID = Option.value(
        "--require-guid", "HEX",
        "accept only this client GUID (32 hex digits), answering InitFail reason 1 to any other, as a paired body does"
    ) { raw throws(CommandFailure) in try SimPairing(requiring: raw, option: "--require-guid") }
    static let verbose = Flag("--verbose", alias: "-v", "log every operation on stderr")
    static let ssdp = Option.integer(
        "--ssdp", "PORT",
        "answer SSDP searches (M-SEARCH) on UDP HOST:PORT with a unicast answer naming the device description, served "
            + "over HTTP on a free port of HOST (0 = any free UDP port; \"camera-sim ssdp on HOST:PORT\" is printed before "
            + "the listening line); canon-eos announces ICPO-WFTEOSSystemService",
        in: UInt16(0)...UInt16.max)

    /// `relay camera-sim --help`, and what relay's completion offers after `camera-sim`.
    public static let spec = CommandSpec(
        name: "camera-sim",
        usage: ["camera-sim --profile NAME [options]"],
        summary: "a PTP/IP camera on a TCP port, for tests and demos: one client session at a time, then the next",
        sections: [
            .init(
                title: "CAMERA OPTIONS",
                options: [
                    profile.spec, host.spec, port.spec, photos.spec, card.spec, handleBase.spec, initialPhotos.spec,
                    photoSize.spec, photoDimensions.spec, raw.spec, rawSize.spec, shootEvery.spec, burst.spec,
                    captureTo.spec, export.spec, seed.spec, propertyEvery.spec, idleTimeout.spec, noRemoteCapture.spec,
                    exposureMode.spec, requireGUID.spec, verbose.spec, ssdp.spec,
                ],
                notes: [
                    "Shooting also happens when a client sends a capture operation (InitiateCapture, RemoteRelease, "
                        + "RemoteReleaseOn full press), on SIGUSR1 (one shot), and for each line \"shoot\" or \"shoot N\" "
                        + "read on stdin. A line \"sleep DURATION\" makes the camera drop its client and stop listening "
                        + "for that long, then wake with the same card (a body that powers down). A line \"activate\" "
                        + "lets a body that served its sessions (--sessions-per-activation) serve again. \"protect N\", "
                        + "\"unprotect N\" and \"rate N K\" (K from -1 to 5) select shot N on the body as a photographer does: "
                        + "its files' ProtectionStatus, or an XMP xmp:Rating written into its JPEG; the generic profile "
                        + "announces each with ObjectInfoChanged (0x4007)."
                ]),
            SimQuirks.section, SimResourceOptions.section, SimFaults.section,
        ],
        notes: [
            "DURATION and SIZE are written as in every relay command: 500ms, 2s, 1.5m, 1h, 1d (a bare number is "
                + "seconds); 200000, 200k, 5M (counted in thousands, as relay's log counts) or 256KiB (counted in 1024s).",
            "Prints \"camera-sim listening on HOST:PORT (profile NAME)\" when ready; stops on SIGINT or SIGTERM. "
                + "Exit codes: 0 stopped, 2 bad flags, 1 cannot listen or read --photos.",
        ])

    /// Seconds in relay's one duration grammar, as a usage error naming `option`.
    static func duration(_ raw: String, option: String, in range: ClosedRange<Double>) throws(CommandFailure) -> Double {
        do throws(CommandLineValueError) {
            return try DurationText.parse(raw, option: option, in: range)
        } catch {
            throw CommandFailure(.usage, error.description)
        }
    }

    /// A fraction of operations or photos, from 0 to 1.
    static func fraction(_ name: String, _ help: String) -> Option<Double> {
        .value(name, "FRACTION", help) { raw throws(CommandFailure) in
            guard let value = Double(raw), value >= 0, value <= 1 else {
                throw CommandFailure.badValue(name, raw, expected: "a fraction from 0 to 1")
            }
            return value
        }
    }
}
