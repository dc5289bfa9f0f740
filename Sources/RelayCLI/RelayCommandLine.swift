import Foundation
import CameraSim
import RelayCore

/// The `relay` command: dispatches to a subcommand and turns failures into a message on stderr
/// and a documented exit code (never a stack trace).
public enum RelayCommandLine {
    public static let version = "0.1.0"

    /// Runs relay with `arguments` (without the program name); returns the exit code.
    public static func main(_ arguments: [String]) -> Int32 {
        let environment = ProcessInfo.processInfo.environment
        do {
            try dispatch(arguments, environment: environment)
            return ExitCode.success.rawValue
        } catch let failure as CommandFailure {
            FileHandle.standardError.write(Data("relay: \(failure.message)\n".utf8))
            return failure.code.rawValue
        } catch {
            FileHandle.standardError.write(Data("relay: \(CommandFailure.from(error).message)\n".utf8))
            return CommandFailure.from(error).code.rawValue
        }
    }

    static func dispatch(_ arguments: [String], environment: [String: String]) throws {
        guard let command = arguments.first else {
            print(help)
            return
        }
        let rest = Array(arguments.dropFirst())
        let home = RelayHome.resolve(environment: environment)
        // `relay run --help` and the like: the one help text covers every command's options
        // (camera-sim has its own).
        if command != "camera-sim", rest.contains(where: { $0 == "--help" || $0 == "-h" }) {
            print(help)
            return
        }
        switch command {
        case "--help", "-h", "help":
            print(help)
        case "--version", "version":
            print("relay \(version)")
        case "run":
            try RunCommand.run(rest, home: home, environment: environment)
        case "capture":
            try CaptureCommand.run(rest, home: home, environment: environment)
        case "discover":
            try DiscoverCommand.run(rest, home: home)
        case "pair":
            try PairCommand.run(rest, home: home)
        case "config":
            try ConfigCommand.run(rest, home: home)
        case "history":
            try HistoryCommand.run(rest, home: home)
        case "status":
            try StatusCommand.run(rest, home: home)
        case "retry":
            try RetryCommand.run(rest, home: home)
        case "rendition":
            try RenditionCommand.run(rest, home: home)
        case "ftp-setup":
            try FTPArguments.runSetup(rest, home: home, environment: environment)
        case "camera-sim":
            let code = CameraSimCommand.run(arguments: rest)
            if code != 0 { exit(code) }
        default:
            throw CommandFailure(.usage, "unknown command '\(command)' (see relay --help)")
        }
    }

    static var help: String {
        """
        relay \(version) — moves photos from a camera to a web gallery, live.

        USAGE
          relay run --camera ptpip://HOST[:PORT]|auto [options]  take each new JPEG off a Wi-Fi camera and upload it
          relay run --camera usb|usb:BUS,DEV|gphoto2:PORT         the same off a USB camera, through libgphoto2
          relay run --folder PATH [options]                      take JPEGs from a hot folder and upload them
          relay run --ftp [ADDRESS:]PORT --ftp-user NAME[:VARIABLE]... [options]
                                                                 be the FTP server cameras upload to (see CAMERA FTP)
          relay ftp-setup [--ftp [ADDRESS:]PORT] [--ftp-tls MODE] --ftp-user NAME[:VARIABLE]...
                                                                 what to type into the camera's FTP menu
          relay capture --camera ADDRESS --every DURATION [--count N | --until TIME | --for DURATION] [options]
                                                                 fire the camera on a schedule and upload every frame
          relay capture --camera ADDRESS --once [options]        take one shot and upload it
          relay capture --resume                                 continue the last capture run that did not finish
          relay discover [--range RANGE] [--identify] [--json]   find cameras on the local network (see DISCOVER OPTIONS)
          relay pair --camera ptpip://HOST[:PORT] [--guid HEX] [--name NAME] [--wait DURATION]
                                                                 pair relay with a camera (shows what to press on it);
                                                                 --guid/--name: the id and name of software the body
                                                                 was paired with; run and capture use them for HOST
          relay config add --url URL [--verb POST] [--note TEXT] [--header 'Name: value']...
                           [--field name=value]... [--file-field NAME] [--body multipart|raw]
                           [--timeout SECONDS] [--max-bytes-per-second N]
                           [--max-edge PIXELS [--quality 85] [--strip-gps] [--strip-metadata]]
                           URL: http(s)://… or s3://BUCKET/PREFIX [--endpoint http://HOST:PORT]
                           [--region us-east-1] [--addressing path|virtual] (keys from AWS_ACCESS_KEY_ID,
                           AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN); ftp:// or ftps:// (explicit TLS)
                           [--password '${FTP_PASSWORD}'] [--ca-certificate PEM]; sftp://USER@HOST/PATH
                           [--ssh-key FILE] [--known-hosts FILE]; placeholders in the URL's path:
                           {name} {stem} {ext} {date} {time} {camera} {serial} {seq} {run}
                           [--priority low]: with several --config in one run, send only while
                           nothing of normal priority waits (a full-size backup beside the gallery)
                           [--manifest-url URL]: http(s) only, where a --session's manifest is POSTed
                                                                 --max-edge: send a gallery-sized copy (see RENDITIONS)
          relay config list|show [ID|NOTE]|use ID|NOTE|remove ID|NOTE|import FILE   [--json]
          relay history [-n N] [--failed] [--json]                 the last 100 upload attempts
          relay status [--json]                                    what the spool holds: queued, in flight, failed
          relay retry [--all | ID...] [--destination ID|NOTE]      put failed photos back in the queue
          relay rendition PHOTO [--max-edge N ...|--config ID] [-o OUT]
                                                                 make the copy a config would send, to look at it
          relay camera-sim --profile canon-eos|nikon|generic ...   a PTP/IP camera for tests and demos
          relay --help | --version

        RUN OPTIONS
          --camera ADDRESS         a PTP/IP camera: ptpip://HOST[:PORT] (port 15740 by default), or auto to
                                   look for one on this machine's networks (--range to say where); through
                                   libgphoto2: usb (the first USB camera), usb:BUS,DEV, gphoto2:PORT (any
                                   libgphoto2 port, e.g. gphoto2:ptpip:192.168.1.2)
          --folder PATH            a hot folder; --camera and --folder may each be given several times
          --include-raw            cameras: take RAW files too (by default they stay on the card, counted as skipped)
          --include-existing       cameras: also take what was on the card before relay first connected to it
          --chunk-size SIZE        cameras: bytes per download request, what a dropped link costs (default 1M)
          --range RANGE            with --camera auto: where to look, e.g. 192.168.1.0/24 or 10.0.0.2-40
          --list-every DURATION    cameras: how often the card is listed to catch a photo whose event was lost (default 10s)
          --config ID|NOTE         upload with this config instead of the selected one; repeat it to
                                   deliver each photo to several (the first of normal priority is the primary)
          --workers N              parallel uploads, each on its own kept-alive connection (default 2)
          --spool-max-photos N     photos the spool may hold before the source waits (default 1000)
          --spool-max-bytes SIZE   bytes the spool may hold, e.g. 500M, 4G (default 4G)
          --settle DURATION        hot folder: how long a file's size must stay unchanged before it is taken (default 1s)
          --grace DURATION         on SIGINT/SIGTERM, time given to uploads in flight (default 15s)
          --session NAME           name the run's set: {run} is NAME, and a clean end with every photo delivered
                                   sends each destination its manifest, then _DONE (capture runs are sessions)
          --retry-base DURATION    first retry delay ceiling (default 0.5s); doubles per attempt, full jitter
          --retry-cap DURATION     largest retry delay ceiling (default 60s)
          --status [ADDRESS:]PORT  serve a live status page, /metrics and /healthz (a port alone: loopback only;
                                   0.0.0.0:8080 for a phone); with $RELAY_STATUS_TOKEN set, it asks for ?token=

        CAMERA FTP (relay run --ftp; --ftp, --camera and --folder may be combined)
          --ftp [ADDRESS:]PORT     listen for camera FTP uploads (2121 is the usual port; 21 needs root)
          --ftp-user NAME[:VAR]    a login; its password is in $RELAY_FTP_PASSWORD, or in $VAR (never on the
                                   command line); each user has a folder of its own; may be repeated
          --ftp-max-size SIZE      a bigger photo is refused (default 4G); --ftp-sessions N connections at
                                   once (default 16); --ftp-idle DURATION closes a silent connection (default 5m);
                                   --ftp-keep-partial DURATION keeps a cut-off upload for a resume (default 1h)
          --ftp-tls MODE           off (default), optional or required: explicit FTPS (AUTH TLS, PROT P) with a
                                   certificate made on first start in $RELAY_HOME/ftp/tls; its SHA-256
                                   fingerprint is printed, for approving it on the camera
          A photo is answered 226 only once it is in the spool; RAW and video are answered 226 and skipped
          (--include-raw takes RAW); an upload cut off is kept an hour for a REST/APPE resume.

        CAPTURE OPTIONS (and the run options above, for one --camera)
          --every DURATION         time between shots: 30s, 5m, 1h, 1d (at least 1s; smaller values are raised
                                   to 1s); the first shot fires at once
          --count N                take N shots; or --until HH:MM[:SS] | YYYY-MM-DDTHH:MM, or --for DURATION;
                                   without them the run goes on until Ctrl-C
          A shot counts as captured when the camera shows its new photo, failed when the camera answers
          DeviceBusy 3 times or no photo comes within 10s, missed when it falls due while the camera is away.
          A run in which shots fell due but none was captured exits 1; one with some captured exits 0 and
          its summary counts the failed and missed shots.

        RENDITIONS
          A config with --max-edge sends each photo as a copy at most that many pixels on its long edge
          (2048 suits a gallery: about 0.5–1 MB instead of 15–25 MB), made as soon as the photo is in the
          spool. The copy is turned upright and keeps the photo's EXIF, IPTC, XMP and colour profile
          (--strip-gps removes the GPS directory, --strip-metadata all but the colour profile). A smaller
          photo is never enlarged; it goes as it is. A photo that cannot be decoded goes as the original,
          and the log and relay history say why.

        \(DiscoverCommand.help)

        FILES
          State lives in $RELAY_HOME (default $XDG_STATE_HOME/relay, else ~/.local/state/relay):
          configs.json, history.json, cameras.json (relay's pairing ids, known cameras), capture.json (the last
          capture run, for --resume), seen/ (what each source already took), spool/ (spool/failed/ holds
          permanent failures).

        EXIT CODES
        \(ExitCode.allCases.map { "  \($0.rawValue)  \($0.meaning)" }.joined(separator: "\n"))
        """
    }
}

extension CommandFailure {
    /// Maps the typed errors of the library modules to a message and an exit code.
    static func from(_ error: Error) -> CommandFailure {
        switch error {
        case let failure as CommandFailure: return failure
        case let error as ConfigError: return CommandFailure(.config, error.description)
        case let error as StateFileError: return CommandFailure(.stateFile, error.description)
        default: return CommandFailure(.failure, "\(error)")
        }
    }
}
