import Foundation
import GPhoto2
import HotFolder
import Intake
import PTPIP
import Pipeline
import RelayCore
import RunEvents
import Spool
import Tether
import Uploader

/// `relay run`: parses its flags, installs the signal handlers, runs the pipeline.
enum RunCommand {
    static func run(_ arguments: [String], home: RelayHome, environment: [String: String]) throws {
        let args = try Arguments(arguments, spec.options, command: spec.name)
        if let extra = args.positionals.first { throw CommandFailure(.usage, "unexpected argument '\(extra)'") }
        let ftp = try FTPArguments.spec(args, environment: environment)
        let options = try runOptions(args, sources: try sourceSpecs(args, also: ftp.map { [$0] } ?? []))
        let outputs = RunOutputs(json: args.has("--json"))
        defer { outputs.finish() }
        let status = try StatusArguments.start(args, bus: outputs.bus, environment: environment)
        defer { status?.stop() }
        try execute(options, home: home, environment: environment, outputs: outputs) { _ in }
    }

    /// The pipeline's options from the flags.
    static func runOptions(_ args: Arguments, sources: [any SourceSetting]) throws(CommandFailure) -> RelayRun.Options {
        var limits = SpoolLimits()
        if let photos = try args.integer("--spool-max-photos", in: 1...1_000_000) { limits.maxPhotos = photos }
        if let bytes = try args.bytes("--spool-max-bytes", in: 1...Int64.max) { limits.maxBytes = bytes }
        var backoff = Backoff()
        if let base = try args.seconds("--retry-base", in: 0.001...3600) { backoff.base = base }
        if let cap = try args.seconds("--retry-cap", in: 0.001...86_400) { backoff.cap = cap }
        var options = RelayRun.Options(
            sources: sources, configQuery: args.all("--config").first, limits: limits,
            policy: DeliveryPolicy(backoff: backoff), moreConfigQueries: Array(args.all("--config").dropFirst()))
        if let workers = try args.integer("--workers", in: 1...16) { options.workers = workers }
        if let grace = try args.seconds("--grace", in: 0...86_400) { options.graceSeconds = grace }
        options.session = args.value("--session")
        return options
    }

    /// Checks and runs the pipeline until SIGINT/SIGTERM (a second one cuts the grace period
    /// short) or until `started`'s caller sets the stop flag it is handed.
    /// `firstStop` may take the first signal for itself (a bracketing run ends its frame first):
    /// it returns true when it did, and the next signal stops the run.
    static func execute(
        _ options: RelayRun.Options, home: RelayHome, environment: [String: String], outputs: RunOutputs,
        firstStop: (@Sendable () -> Bool)? = nil, started: (StopFlag) -> Void
    ) throws {
        signal(SIGPIPE, SIG_IGN)
        // First, so that a stop asked for while the spool is opened ends the run at once.
        let stop = outputs.stop
        let abort = StopFlag()
        SignalWatch.watch([SIGINT, SIGTERM]) { _ in
            if stop.isStopped { abort.stop() } else if firstStop?() != true { stop.stop() }
        }
        let relayRun: RelayRun
        do {
            relayRun = try RelayRun(home: home, options: options, environment: environment, bus: outputs.bus)
        } catch {
            throw failure(error)
        }
        started(stop)
        // Under systemd (Type=notify): ready once the run starts, a watchdog ping and a status
        // line from its main loop.
        var heartbeat: () -> Void = {}
        if let notifier = SystemdNotifier(environment: environment) {
            let state = outputs.state
            outputs.bus.subscribe { event in
                switch event.event {
                case .run(.started): notifier.send("READY=1")
                case .run(.stopping): notifier.send("STOPPING=1")
                default: break
                }
            }
            heartbeat = { notifier.heartbeat(status: ProgressLine.format(state.snapshot, at: Date())) }
        }
        do {
            try relayRun.run(stop: stop, abort: abort, heartbeat: heartbeat)
        } catch {
            throw failure(error)
        }
        if outputs.readerGone.isStopped {
            throw CommandFailure(
                .failure,
                "stopped because stdout was closed while relay wrote --json events; "
                    + "photos not yet delivered are in the spool and go with the next run")
        }
    }

    /// The photo sources named by `--folder` and `--camera` (each may be given several times),
    /// after those in `also` (the FTP receiver).
    static func sourceSpecs(_ args: Arguments, also: [any SourceSetting] = []) throws(CommandFailure) -> [any SourceSetting] {
        let folders = args.all("--folder")
        let cameras = args.all("--camera")
        guard !folders.isEmpty || !cameras.isEmpty || !also.isEmpty else {
            throw CommandFailure(
                .usage,
                "give a photo source: --camera ptpip://HOST[:PORT] (or auto) for a Wi-Fi camera, "
                    + "--camera usb for a USB camera, --ftp PORT for cameras that upload over FTP, or --folder PATH for the folder your camera or FTP server writes to"
            )
        }
        let settle = try args.seconds("--settle", in: 0...3600)
        var specs: [any SourceSetting] =
            also
            + folders.map {
                HotFolderSource.Options(folder: URL(fileURLWithPath: $0, isDirectory: true).standardizedFileURL, settleSeconds: settle ?? 1)
            }
        let chunkSize = try args.bytes("--chunk-size", in: 4_000...64_000_000).map { Int($0) }
        let listEvery = try args.seconds("--list-every", in: 1...3600)
        let keepAlive = try args.seconds("--keep-alive", in: 0.5...60)
        var range: [String]?
        if let text = args.value("--range") {
            do { range = try AddressRange.parse(text) } catch { throw CommandFailure(.usage, error.description) }
        }
        for text in cameras {
            let gphoto2Port: GPhoto2Port?
            do { gphoto2Port = try GPhoto2Port.parse(text) } catch { throw CommandFailure(.usage, error.description) }
            if let gphoto2Port {
                var camera = GPhoto2Source.Options(port: gphoto2Port)
                camera.includeRAW = args.has("--include-raw")
                camera.includeExisting = args.has("--include-existing")
                if let chunkSize { camera.chunkSize = chunkSize }
                specs.append(camera)
                continue
            }
            var camera: CameraSource.Options
            do { camera = CameraSource.Options(address: try CameraAddress.parse(text)) } catch {
                throw CommandFailure(.usage, error.description)
            }
            camera.includeRAW = args.has("--include-raw")
            camera.includeExisting = args.has("--include-existing")
            if let chunkSize { camera.chunkSize = chunkSize }
            if let listEvery { camera.crossCheckInterval = listEvery }
            if let keepAlive { camera.keepAliveSeconds = keepAlive }
            camera.discoveryAddresses = range
            specs.append(camera)
        }
        if cameras.isEmpty {
            for flag in ["--include-raw", "--include-existing"] where args.has(flag) && (also.isEmpty || flag == "--include-existing") {
                throw CommandFailure(.usage, "\(flag) is for cameras: use it with --camera")
            }
            for option in ["--chunk-size", "--range", "--list-every", "--keep-alive"] where !args.all(option).isEmpty {
                throw CommandFailure(.usage, "\(option) is for cameras: use it with --camera")
            }
        } else if !specs.contains(where: { $0 is CameraSource.Options }) {
            for option in ["--range", "--list-every"] where !args.all(option).isEmpty {
                throw CommandFailure(.usage, "\(option) is for Wi-Fi cameras (ptpip:// or auto): libgphoto2 cameras take no \(option)")
            }
        }
        return specs
    }

    static func failure(_ error: RunError) -> CommandFailure {
        switch error {
        case .config(let error): return CommandFailure(.config, error.description)
        case .state(let error): return CommandFailure(.stateFile, error.description)
        case .spool(let error):
            if case .locked = error { return CommandFailure(.busy, error.description) }
            return CommandFailure(.stateFile, error.description)
        case .source(let message): return CommandFailure(.source, message)
        case .uploader(let error): return CommandFailure(.failure, error.description)
        }
    }
}
