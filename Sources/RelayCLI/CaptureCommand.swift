import Capture
import CommandLineOptions
import Foundation
import Intake
import Pipeline
import RelayCore
import RunEvents
import Tether

/// `relay capture`: fires the camera on a schedule (or once) and uploads every frame, with the
/// pipeline of `relay run`; `--resume` continues the last run that did not finish.
enum CaptureCommand {
    static func run(_ arguments: [String], home: RelayHome, environment: [String: String]) throws {
        var commandLine = arguments
        var resumed: CaptureLedger?
        if arguments.contains(resume.name) {
            guard arguments == ["--resume"] else {
                throw CommandFailure(.usage, "--resume takes no other options: the run goes on with the options it was started with")
            }
            let saved: CaptureLedger?
            do { saved = try CaptureController.load(home.captureFile) } catch { throw CommandFailure(.stateFile, error.description) }
            guard var ledger = saved else {
                throw CommandFailure(
                    .usage, "there is no capture run to resume: start one with relay capture --camera ptpip://HOST --every 30s")
            }
            guard !ledger.ended else {
                throw CommandFailure(.failure, "the last capture run is finished (\(ledger.summary(stopped: false))): nothing to resume")
            }
            ledger.resume()
            commandLine = ledger.arguments
            resumed = ledger
        }
        let args = try Arguments(commandLine, spec.options, command: spec.name)
        if let extra = args.positionals.first { throw CommandFailure(.usage, "unexpected argument '\(extra)'") }
        let bracket = resumed == nil ? try bracketPlan(args) : nil
        if let bracket, args.has(dryRun) {
            for line in bracket.summary { print(line) }
            return
        }
        let cameras = try args.values(CameraSourceKind.camera)
        guard cameras.count == 1, let camera = cameras.first else {
            throw CommandFailure(.usage, "relay capture fires one camera: give --camera ptpip://HOST[:PORT] (or auto, or usb) once")
        }
        let outputs = RunOutputs(json: args.has(RunCommand.json))
        defer { outputs.finish() }
        let bus = outputs.bus
        let status = try StatusArguments.start(args, bus: bus, environment: environment)
        defer { status?.stop() }
        if bracket != nil || resumed?.bracket != nil, !camera.hasPrefix("ptpip://") {
            throw CommandFailure(.usage, "bracketing sets the shutter speed over PTP/IP: give --camera ptpip://HOST, not \(camera)")
        }
        var ledger =
            try resumed ?? bracket.map { CaptureLedger(bracket: $0, arguments: commandLine) }
            ?? newLedger(args, commandLine: commandLine, home: home, bus: bus)
        if ledger.session == nil {
            let now = Date()
            ledger.session = try args.value(RunCommand.session) ?? "capture-\(PathTemplate.day(now))-\(Int(now.timeIntervalSince1970))"
        }
        let controller = CaptureController(
            ledger: ledger, file: home.captureFile, bus: bus,
            shotTimeout: try args.value(shotTimeout) ?? CaptureController.defaultShotTimeout)
        let sources = try SourceKinds.settings(args, environment: environment, kinds: [CameraSourceKind.self]).map {
            setting -> any SourceSetting in
            guard var camera = setting as? any CaptureSetting else { return setting }
            camera.capture = controller
            return camera
        }
        var options = try RunCommand.runOptions(args, sources: sources)
        // A capture run is a session of its own, named when it starts (the ledger keeps it for --resume).
        options.session = ledger.session
        if resumed != nil {
            bus.publish(.capture(.notice("resuming the capture run: \(ledger.summary(stopped: true))", .info)))
        }

        let finishedByItself = StopFlag()
        // Bracketing: the first Ctrl-C ends the run after the frame under way.
        let firstStop: (@Sendable () -> Bool)? = controller.isBracketing ? { @Sendable in controller.requestStop() } : nil
        try RunCommand.execute(
            options, home: home, environment: environment, outputs: outputs, status: status, firstStop: firstStop
        ) { stop in
            Thread.detachNewThread {
                repeat {
                    controller.tick()
                    if controller.refusal != nil || (controller.isComplete && controller.uploadsPending == 0) {
                        finishedByItself.stop()
                        stop.stop()
                    }
                } while !stop.sleep(0.1)
            }
        }
        let summary = controller.finish(stopped: !finishedByItself.isStopped)
        outputs.finish()
        if let refusal = controller.refusal { throw CommandFailure(.source, refusal) }
        // With --json, stdout holds only events: the summary goes with the log.
        let say: (String) -> Void = args.has(RunCommand.json) ? { RunConsole.write(STDERR_FILENO, $0 + "\n") } : { print($0) }
        say(summary)
        let saved = controller.snapshot
        if !saved.ended {
            say("relay capture --resume continues this run")
        }
        if let failed = saved.nothingCaptured ?? saved.bracketIncomplete { throw CommandFailure(.failure, failed) }
    }

    /// The schedule from `--every` and one of `--count`, `--until`, `--for` (or `--once`).
    private static func newLedger(
        _ args: Arguments, commandLine: [String], home: RelayHome,
        bus: RunEventBus
    ) throws -> CaptureLedger {
        let now = Date()
        let limits = Self.limits.filter(args.gave).map(\.name)
        if args.has(once) {
            if let other = args.gave(every.spec) ? every.name : limits.first {
                throw CommandFailure(.usage, "--once takes a single shot: leave out \(other)")
            }
            return CaptureLedger(interval: CaptureTiming.minimumInterval, total: 1, endsAt: nil, arguments: commandLine)
        }
        guard limits.count <= 1 else {
            throw CommandFailure(.usage, "give one of --count, --until and --for, not \(limits.joined(separator: " and "))")
        }
        guard let every = try args.value(Self.every) else {
            throw CommandFailure(
                .usage, "--every is required: how often to shoot, e.g. --every 30s (units ms, s, m, h, d), or --once for one shot")
        }
        let interval: (seconds: Double, note: String?)
        var total: Int?
        var endsAt: Date?
        let runLength = try args.value(runFor)
        let endTime = try args.value(until)
        do {
            interval = try CaptureTiming.interval(every)
            if let text = runLength { endsAt = now.addingTimeInterval(try CaptureTiming.runLength(text)) }
            if let text = endTime { endsAt = try CaptureTiming.endTime(text, now: now) }
        } catch {
            throw CommandFailure(.usage, error.description)
        }
        total = try args.value(count)
        if let note = interval.note { bus.publish(.capture(.notice(note, .info))) }
        let previous: CaptureLedger?
        do { previous = try CaptureController.load(home.captureFile) } catch { throw CommandFailure(.stateFile, error.description) }
        if let previous, !previous.ended {
            bus.publish(
                .capture(
                    .notice(
                        "the unfinished capture run before this one (\(previous.summary(stopped: true))) is "
                            + "replaced by this one", .info)))
        }
        return CaptureLedger(interval: interval.seconds, total: total, endsAt: endsAt, arguments: commandLine)
    }
}
