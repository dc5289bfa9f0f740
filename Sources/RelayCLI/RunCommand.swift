import Dispatch
import Foundation
import Pipeline
import RelayCore
import Spool
import Uploader

/// `relay run`: parses its flags, installs the signal handlers, runs the pipeline.
enum RunCommand {
    static func run(_ arguments: [String], home: RelayHome, environment: [String: String]) throws {
        let args = try Arguments(arguments, options: [
            "--folder", "--config", "--workers", "--spool-max-photos", "--spool-max-bytes", "--settle", "--grace",
            "--retry-base", "--retry-cap",
        ], flags: [])
        if let extra = args.positionals.first { throw CommandFailure(.usage, "unexpected argument '\(extra)'") }
        let folder = try args.required("--folder", hint: "relay run --folder PATH (the folder your camera or FTP server writes to)")
        var limits = SpoolLimits()
        if let photos = try args.integer("--spool-max-photos", in: 1...1_000_000) { limits.maxPhotos = photos }
        if let bytes = try args.bytes("--spool-max-bytes") { limits.maxBytes = bytes }
        var backoff = Backoff()
        if let base = try args.seconds("--retry-base", minimum: 0.001, maximum: 3600) { backoff.base = base }
        if let cap = try args.seconds("--retry-cap", minimum: 0.001, maximum: 86_400) { backoff.cap = cap }
        let options = RelayRun.Options(
            folder: URL(fileURLWithPath: folder, isDirectory: true).standardizedFileURL,
            configQuery: try args.value("--config"),
            workers: try args.integer("--workers", in: 1...16) ?? 2,
            limits: limits,
            settleSeconds: try args.seconds("--settle", maximum: 3600) ?? 1,
            graceSeconds: try args.seconds("--grace", maximum: 86_400) ?? 15,
            policy: DeliveryPolicy(backoff: backoff))

        signal(SIGPIPE, SIG_IGN)
        let console = RunConsole()
        let relayRun: RelayRun
        do {
            relayRun = try RelayRun(home: home, options: options, environment: environment, console: console)
        } catch {
            throw failure(error)
        }
        let stop = StopFlag()
        let abort = StopFlag()
        var sources: [DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if stop.isStopped { abort.stop() } else { stop.stop() }
            }
            source.resume()
            sources.append(source)
        }
        do {
            try relayRun.run(stop: stop, abort: abort)
        } catch {
            throw failure(error)
        }
        withExtendedLifetime(sources) {}
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
