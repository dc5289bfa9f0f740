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
        let outputs = RunOutputs(json: args.has(json))
        defer { outputs.finish() }
        let status = try StatusArguments.start(args, bus: outputs.bus, environment: environment)
        defer { status?.stop() }
        try execute(options, home: home, environment: environment, outputs: outputs) { _ in }
    }

    /// The pipeline's options from the flags.
    static func runOptions(_ args: Arguments, sources: [any SourceSetting]) throws(CommandFailure) -> RelayRun.Options {
        var limits = SpoolLimits()
        if let photos = try args.value(spoolMaxPhotos) { limits.maxPhotos = photos }
        if let bytes = try args.value(spoolMaxBytes) { limits.maxBytes = bytes }
        var backoff = Backoff()
        if let base = try args.value(retryBase) { backoff.base = base }
        if let cap = try args.value(retryCap) { backoff.cap = cap }
        let configs = try args.values(config)
        var options = RelayRun.Options(
            sources: sources, configQuery: configs.first, limits: limits, policy: DeliveryPolicy(backoff: backoff),
            moreConfigQueries: Array(configs.dropFirst()))
        if let count = try args.value(workers) { options.workers = count }
        if let seconds = try args.value(grace) { options.graceSeconds = seconds }
        options.session = try args.value(session)
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
        let folders = try args.values(folder)
        let cameras = try args.values(camera)
        guard !folders.isEmpty || !cameras.isEmpty || !also.isEmpty else {
            throw CommandFailure(
                .usage,
                "give a photo source: --camera ptpip://HOST[:PORT] (or auto) for a Wi-Fi camera, "
                    + "--camera usb for a USB camera, --ftp PORT for cameras that upload over FTP, or --folder PATH for the folder your camera or FTP server writes to"
            )
        }
        let settleSeconds = try args.value(settle)
        var specs: [any SourceSetting] =
            also
            + folders.map { path in
                var folder = HotFolderSource.Options(folder: URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL)
                if let settleSeconds { folder.settleSeconds = settleSeconds }
                return folder
            }
        let bytesPerRequest = try args.value(chunkSize).map { Int($0) }
        let listingInterval = try args.value(listEvery)
        let keepAliveSeconds = try args.value(keepAlive)
        var addresses: [String]?
        if let text = try args.value(range) {
            do throws(AddressRangeError) { addresses = try AddressRange.parse(text) } catch {
                throw CommandFailure(.usage, error.description)
            }
        }
        for text in cameras {
            let gphoto2Port: GPhoto2Port?
            do { gphoto2Port = try GPhoto2Port.parse(text) } catch { throw CommandFailure(.usage, error.description) }
            if let gphoto2Port {
                var camera = GPhoto2Source.Options(port: gphoto2Port)
                camera.includeRAW = args.has(includeRAW)
                camera.includeExisting = args.has(includeExisting)
                if let bytesPerRequest { camera.chunkSize = bytesPerRequest }
                specs.append(camera)
                continue
            }
            var camera: CameraSource.Options
            do { camera = CameraSource.Options(address: try CameraAddress.parse(text)) } catch {
                throw CommandFailure(.usage, error.description)
            }
            camera.includeRAW = args.has(includeRAW)
            camera.includeExisting = args.has(includeExisting)
            if let bytesPerRequest { camera.chunkSize = bytesPerRequest }
            if let listingInterval { camera.crossCheckInterval = listingInterval }
            if let keepAliveSeconds { camera.keepAliveSeconds = keepAliveSeconds }
            camera.discoveryAddresses = addresses
            specs.append(camera)
        }
        if cameras.isEmpty {
            // FTP takes --include-raw too.
            let cameraFlags = also.isEmpty ? [includeRAW.spec, includeExisting.spec] : [includeExisting.spec]
            for option in cameraFlags + onlyForCameras where args.gave(option) {
                throw CommandFailure(.usage, "\(option.name) is for cameras: use it with --camera")
            }
        } else if !specs.contains(where: { $0 is CameraSource.Options }) {
            for option in onlyForWiFiCameras where args.gave(option) {
                throw CommandFailure(
                    .usage, "\(option.name) is for Wi-Fi cameras (ptpip:// or auto): libgphoto2 cameras take no \(option.name)")
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
