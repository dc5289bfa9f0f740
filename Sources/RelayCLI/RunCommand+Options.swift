import RelayCore

/// `relay run`'s options, declared once; `relay capture` takes the camera and delivery ones too.
extension RunCommand {
    /// Also in `relay ftp-setup`, where FTP uploads of RAW files are taken too.
    static let includeRAW = OptionSpec.flag(
        "--include-raw",
        "cameras and FTP: take RAW files too (by default they stay on "
            + "the card or are answered and dropped, counted as skipped)")

    /// What a camera source takes (`--camera` and how it is read).
    static let cameraOptions: [OptionSpec] = [
        .repeatable(
            "--camera", "ADDRESS",
            "a PTP/IP camera: ptpip://HOST[:PORT] (port 15740 by default), or auto to look for one "
                + "on this machine's networks (--range to say where); through libgphoto2: usb (the first USB camera), usb:BUS,DEV, "
                + "gphoto2:PORT (any libgphoto2 port, e.g. gphoto2:ptpip:192.168.1.2)"),
        includeRAW,
        .flag("--include-existing", "cameras: also take what was on the card before relay first connected to it"),
        .value(
            "--chunk-size", "SIZE", "cameras: bytes per download request, what a dropped link costs",
            default: "1M"),
        .value("--range", "RANGE", "with --camera auto: where to look, e.g. 192.168.1.0/24 or 10.0.0.2-40"),
        .value(
            "--list-every", "DURATION", "cameras: how often the card is listed to catch a photo whose event was lost",
            default: "10s"),
        .value(
            "--keep-alive", "DURATION",
            "cameras over Wi-Fi: after this long without an operation relay sends one (GetDeviceInfo), since bodies drop "
                + "a silent client; lower it for a body that drops sooner", default: "5s"),
    ]

    /// What a hot folder takes.
    static let folderOptions: [OptionSpec] = [
        .repeatable("--folder", "PATH", "a hot folder; --camera and --folder may each be given several times"),
        .value("--settle", "DURATION", "hot folder: how long a file's size must stay unchanged before it is taken", default: "1s"),
    ]

    /// How photos are kept and delivered, whatever their source.
    static let deliveryOptions: [OptionSpec] = [
        .repeatable(
            "--config", "ID|NOTE",
            "upload with this config instead of the selected one; repeat it to deliver each "
                + "photo to several (the first of normal priority is the primary)"),
        .value("--workers", "N", "parallel uploads, each on its own kept-alive connection", default: "2"),
        .value("--spool-max-photos", "N", "photos the spool may hold before the source waits", default: "1000"),
        .value("--spool-max-bytes", "SIZE", "bytes the spool may hold, e.g. 500M, 4G", default: "4G"),
        .value("--grace", "DURATION", "on SIGINT/SIGTERM, time given to uploads in flight", default: "15s"),
        .value(
            "--session", "NAME",
            "name the run's set: {run} is NAME, and a clean end with every photo delivered sends "
                + "each destination its manifest, then _DONE (capture runs are sessions)"),
        .value("--retry-base", "DURATION", "first retry delay ceiling; doubles per attempt, full jitter", default: "0.5s"),
        .value("--retry-cap", "DURATION", "largest retry delay ceiling", default: "60s"),
        .flag("--json", "write the run's events as JSON lines on stdout, one per line (see README 'Events as JSON')"),
        .value(
            "--status", "[ADDRESS:]PORT",
            "serve a live status page, /metrics and /healthz on PORT (loopback unless "
                + "ADDRESS is given); set RELAY_STATUS_TOKEN to require ?token="),
    ]

    static let unitsNote = "DURATION is \(DurationText.forms). SIZE is \(ByteSizeText.forms)."

    static let spec = CommandSpec(
        name: "run",
        usage: [
            "run --camera ptpip://HOST[:PORT]|auto|usb|usb:BUS,DEV|gphoto2:PORT [options]",
            "run --folder PATH [options]",
            "run --ftp [ADDRESS:]PORT --ftp-user NAME[:VARIABLE]... [options]",
        ],
        summary: "take each new JPEG off cameras (Wi-Fi or USB), hot folders or camera FTP uploads and upload it; "
            + "--camera, --folder and --ftp may be combined",
        sections: [
            .init(title: "RUN OPTIONS", options: cameraOptions + folderOptions + deliveryOptions, notes: [unitsNote]),
            FTPArguments.section,
        ])
}
