import CommandLineOptions
import Pipeline
import RelayCore
import Spool

/// `relay run`'s delivery options, declared once with their types (each source kind declares its
/// own: `SourceKinds`); `relay capture` takes the camera and delivery ones too. Each default is
/// read from the value it configures, so help cannot drift from what relay does.
extension RunCommand {
    static let config = RepeatedOption.texts(
        "--config", "ID|NOTE",
        "upload with this config instead of the selected one; repeat it to deliver each "
            + "photo to several (each gets what its own config asks for: a rendition, held photos, low priority)")
    static let workers = Option.integer(
        "--workers", "N", "parallel uploads, each on its own kept-alive connection", default: RelayRun.Options(sources: []).workers,
        in: 1...16)
    static let spoolMaxPhotos = Option.integer(
        "--spool-max-photos", "N", "photos the spool may hold before the source waits", default: SpoolLimits().maxPhotos, in: 1...1_000_000)
    static let spoolMaxBytes = Option.size(
        "--spool-max-bytes", "bytes the spool may hold, e.g. 500M, 4G", default: SpoolLimits().maxBytes, in: 1...Int64.max)
    static let grace = Option.duration(
        "--grace", "on SIGINT/SIGTERM, time given to uploads in flight", default: RelayRun.Options(sources: []).graceSeconds,
        in: 0...86_400)
    static let session = Option.text(
        "--session", "NAME",
        "name the run's set: {run} is NAME, and a clean end with every photo delivered sends "
            + "each destination its manifest, then _DONE (capture runs are sessions)")
    static let photographer = Option.text(
        "--photographer", "NAME",
        "who shoots with this relay: the photographer of each photo whose source names none (a login does), over the owner "
            + "the camera writes (EXIF Artist); {photographer} in a path, x-amz-meta-photographer to an S3 inbox, and the desk's "
            + "credit")
    static let retryBase = Option.duration(
        "--retry-base", "first retry delay ceiling; doubles per attempt, full jitter", default: Backoff().base, in: 0.001...3600)
    static let retryCap = Option.duration("--retry-cap", "largest retry delay ceiling", default: Backoff().cap, in: 0.001...86_400)
    static let json = Flag("--json", "write the run's events as JSON lines on stdout, one per line (see README 'Events as JSON')")

    /// How photos are kept and delivered, whatever their source.
    static let deliveryOptions: [OptionSpec] =
        [
            config.spec, workers.spec, spoolMaxPhotos.spec, spoolMaxBytes.spec, grace.spec, session.spec, photographer.spec,
            retryBase.spec, retryCap.spec,
            json.spec, StatusArguments.status.spec,
        ] + StatusArguments.wallOptions

    static let unitsNote = "DURATION is \(DurationText.forms). SIZE is \(ByteSizeText.forms)."

    static let spec = CommandSpec(
        name: "run",
        usage: [
            "run --camera ptpip://HOST[:PORT]|auto|usb|usb:BUS,DEV|gphoto2:PORT [options]",
            "run --folder PATH [options]",
            "run --ftp [ADDRESS:]PORT --ftp-user NAME[:VARIABLE]... [options]",
            "run --http [ADDRESS:]PORT --http-user NAME[:VARIABLE]... [options]",
            "run --inbox ID|NOTE [--inbox-every DURATION] [--inbox-claim-timeout DURATION] [--inbox-photographer TEMPLATE] "
                + "[--inbox-delete] [options]",
        ],
        summary: "take each new JPEG off cameras (Wi-Fi or USB), hot folders, camera FTP uploads or other relays and phones "
            + "(the HTTP inbox) or a shared S3 bucket (--inbox) and upload it; --camera, --folder, --ftp, --http and --inbox may be combined",
        sections: [
            .init(
                title: "RUN OPTIONS", options: CameraSourceKind.options + FolderSourceKind.options + deliveryOptions, notes: [unitsNote]),
            FTPArguments.section,
            HTTPInboxSourceKind.section,
            S3InboxSourceKind.section,
        ])
}
