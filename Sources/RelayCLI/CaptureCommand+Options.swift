import Capture
import CommandLineOptions

/// `relay capture`'s options, declared once: its timing, and run's camera and delivery options.
extension CaptureCommand {
    static let every = Option.text(
        "--every", "DURATION",
        "time between shots: 30s, 5m, 1h, 1d (at least 1s; smaller values are raised to 1s); the first shot fires at once")
    static let count = Option.integer("--count", "N", "take N shots", in: 1...10_000_000)
    static let until = Option.text("--until", "TIME", "stop at HH:MM[:SS] (the next such time) or YYYY-MM-DDTHH:MM, local time")
    static let runFor = Option.text("--for", "DURATION", "stop after this long")
    static let shotTimeout = Option.duration(
        "--shot-timeout", "how long a fired shot may take to show its photo, beyond the exposure the camera reports",
        default: CaptureController.defaultShotTimeout, in: 1...3600)
    static let once = Flag("--once", "take one shot and upload it (no --every)")
    static let resume = Flag(
        "--resume", "continue the last capture run that did not finish, with the options it was started with (give it alone)")
    /// The limits of a timed run, of which one at most is given.
    static let limits: [OptionSpec] = [count.spec, until.spec, runFor.spec]

    static let timingOptions: [OptionSpec] = [
        every.spec, count.spec, until.spec, runFor.spec, once.spec, shotTimeout.spec, resume.spec,
    ]

    /// The CAPTURE OPTIONS part of `relay capture --help` and of the overview.
    static let timingSection = CommandSpec.Section(
        title: "CAPTURE OPTIONS", options: timingOptions,
        notes: [
            "Give at most one of --count, --until and --for; without them the run goes on until Ctrl-C. A shot counts as "
                + "captured when the camera shows its new photo, failed when the camera answers DeviceBusy 3 times or no "
                + "photo comes within --shot-timeout (and the exposure), missed when it falls due while the camera is away. A run in which shots fell due "
                + "but none was captured exits 1; one with some captured exits 0 and its summary counts the failed and "
                + "missed shots."
        ])

    static let spec = CommandSpec(
        name: "capture",
        usage: [
            "capture --camera ADDRESS --every DURATION [--count N | --until TIME | --for DURATION] [options]",
            "capture --camera ADDRESS --once [options]",
            "capture --camera ptpip://HOST --bracket SPEEDS | --bracket-range FAST..SLOW --frames N --ev STOPS [--sets K] [--dry-run]",
            "capture --resume",
        ],
        summary: "fire one camera on a schedule (or once) and upload every frame",
        sections: [
            timingSection,
            bracketSection,
            .init(
                title: "RUN OPTIONS (for the one --camera)", options: CameraSourceKind.options + RunCommand.deliveryOptions,
                notes: [RunCommand.unitsNote]),
        ])
}
