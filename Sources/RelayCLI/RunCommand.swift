import CommandLineOptions
import Foundation
import GPhoto2
import HotFolder
import Intake
import PTPIP
import Pipeline
import RelayCore
import RunEvents
import Spool
import StatusPage
import Tether
import Uploader

/// `relay run`: parses its flags, installs the signal handlers, runs the pipeline.
enum RunCommand {
    static func run(_ arguments: [String], home: RelayHome, environment: [String: String]) throws {
        let args = try Arguments(arguments, spec.options, command: spec.name)
        if let extra = args.positionals.first { throw CommandFailure(.usage, "unexpected argument '\(extra)'") }
        let options = try runOptions(args, sources: try SourceKinds.settings(args, environment: environment))
        let outputs = RunOutputs(json: args.has(json))
        defer { outputs.finish() }
        let status = try StatusArguments.start(args, bus: outputs.bus, environment: environment)
        defer { status?.stop() }
        try execute(options, home: home, environment: environment, outputs: outputs, status: status) { _ in }
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
        if let name = try args.value(photographer) {
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, trimmed.count <= 100,
                !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else {
                throw CommandFailure(.usage, "--photographer '\(name)': give a name of 1 to 100 characters, without control characters")
            }
            options.photographer = trimmed
        }
        return options
    }

    /// Checks and runs the pipeline until SIGINT/SIGTERM (a second one cuts the grace period
    /// short) or until `started`'s caller sets the stop flag it is handed.
    /// `firstStop` may take the first signal for itself (a bracketing run ends its frame first):
    /// it returns true when it did, and the next signal stops the run.
    static func execute(
        _ options: RelayRun.Options, home: RelayHome, environment: [String: String], outputs: RunOutputs,
        status: StatusServer? = nil, firstStop: (@Sendable () -> Bool)? = nil, started: (StopFlag) -> Void
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
        var heartbeat: Heartbeat?
        if let notifier = SystemdNotifier(environment: environment) {
            let state = outputs.state
            outputs.bus.subscribe { event in
                switch event.event {
                case .run(.started): notifier.send("READY=1")
                case .run(.stopping): notifier.send("STOPPING=1")
                default: break
                }
            }
            heartbeat = Heartbeat(every: 0.5) { notifier.heartbeat(status: ProgressLine.format(state.snapshot, at: Date())) }
        }
        do {
            try relayRun.run(stop: stop, abort: abort, heartbeat: heartbeat) {
                StatusArguments.attachRun(status, to: relayRun, bus: outputs.bus)
            }
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
