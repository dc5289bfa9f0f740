import Foundation
import HotFolder
import Pipeline
import RelayCore
import Spool
import Tether

/// `relay run`'s options, declared once with their types; `relay capture` takes the camera and
/// delivery ones too. Each default is read from the value it configures, so help cannot drift
/// from what relay does.
extension RunCommand {
    /// Also in `relay ftp-setup`, where FTP uploads of RAW files are taken too.
    static let includeRAW = Flag(
        "--include-raw",
        "cameras and FTP: take RAW files too (by default they stay on "
            + "the card or are answered and dropped, counted as skipped)")

    static let camera = RepeatedOption.texts(
        "--camera", "ADDRESS",
        "a PTP/IP camera: ptpip://HOST[:PORT] (port 15740 by default), or auto to look for one "
            + "on this machine's networks (--range to say where); through libgphoto2: usb (the first USB camera), usb:BUS,DEV, "
            + "gphoto2:PORT (any libgphoto2 port, e.g. gphoto2:ptpip:192.168.1.2)")
    static let includeExisting = Flag("--include-existing", "cameras: also take what was on the card before relay first connected to it")
    static let chunkSize = Option.size(
        "--chunk-size", "cameras: bytes per download request, what a dropped link costs",
        default: Int64(CameraSource.Options.defaultChunkSize), in: 4_000...64_000_000)
    static let range = Option.text("--range", "RANGE", "with --camera auto: where to look, e.g. 192.168.1.0/24 or 10.0.0.2-40")
    static let listEvery = Option.duration(
        "--list-every", "cameras: how often the card is listed to catch a photo whose event was lost",
        default: CameraSource.Options(address: .auto).crossCheckInterval, in: 1...3600)
    static let keepAlive = Option.duration(
        "--keep-alive",
        "cameras over Wi-Fi: after this long without an operation relay sends one (GetDeviceInfo), since bodies drop "
            + "a silent client; lower it for a body that drops sooner", default: CameraSource.Options(address: .auto).keepAliveSeconds,
        in: 0.5...60)

    /// What a camera source takes (`--camera` and how it is read).
    static let cameraOptions: [OptionSpec] = [
        camera.spec, includeRAW.spec, includeExisting.spec, chunkSize.spec, range.spec, listEvery.spec, keepAlive.spec,
    ]
    /// The camera options that only a camera uses.
    static let onlyForCameras: [OptionSpec] = [chunkSize.spec, range.spec, listEvery.spec, keepAlive.spec]
    /// The camera options a libgphoto2 camera does not take.
    static let onlyForWiFiCameras: [OptionSpec] = [range.spec, listEvery.spec]

    static let folder = RepeatedOption.texts("--folder", "PATH", "a hot folder; --camera and --folder may each be given several times")
    static let settle = Option.duration(
        "--settle", "hot folder: how long a file's size must stay unchanged before it is taken",
        default: HotFolderSource.Options(folder: URL(fileURLWithPath: "/")).settleSeconds, in: 0...3600)

    /// What a hot folder takes.
    static let folderOptions: [OptionSpec] = [folder.spec, settle.spec]

    static let config = RepeatedOption.texts(
        "--config", "ID|NOTE",
        "upload with this config instead of the selected one; repeat it to deliver each "
            + "photo to several (the first of normal priority is the primary)")
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
    static let retryBase = Option.duration(
        "--retry-base", "first retry delay ceiling; doubles per attempt, full jitter", default: Backoff().base, in: 0.001...3600)
    static let retryCap = Option.duration("--retry-cap", "largest retry delay ceiling", default: Backoff().cap, in: 0.001...86_400)
    static let json = Flag("--json", "write the run's events as JSON lines on stdout, one per line (see README 'Events as JSON')")

    /// How photos are kept and delivered, whatever their source.
    static let deliveryOptions: [OptionSpec] = [
        config.spec, workers.spec, spoolMaxPhotos.spec, spoolMaxBytes.spec, grace.spec, session.spec, retryBase.spec, retryCap.spec,
        json.spec, StatusArguments.status.spec,
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
