import Capture
import CommandLineOptions
import PTPWire

/// `relay capture --bracket`: exposure bracketing, its options and its plan.
extension CaptureCommand {
    static let bracket = Option.text(
        "--bracket", "SPEEDS",
        "fire one frame at each shutter speed, in order: 1/1000,1/250,1/60,1/15 (forms: \(ShutterSpeed.acceptedForms))")
    static let bracketRange = Option.text(
        "--bracket-range", "FAST..SLOW", "cover the metered range, e.g. 1/1000..1/4, with --frames and --ev")
    static let frames = Option.integer(
        "--frames", "N",
        "frames per set for --bracket-range (\(BracketPlan.framesPerSet.lowerBound)–\(BracketPlan.framesPerSet.upperBound))",
        in: 1...1000)
    static let ev = Option.text("--ev", "STOPS", "stops between frames for --bracket-range: 1, 0.7 (2/3), 0.3 (1/3), 1.5, 2")
    static let sets = Option.integer("--sets", "K", "repeat the plan K times", default: 1, in: 1...1000)
    static let dryRun = Flag("--dry-run", "print the plan (sets, frames, speeds, total exposure, estimated duration) and fire nothing")

    static let bracketOptions: [OptionSpec] = [bracket.spec, bracketRange.spec, frames.spec, ev.spec, sets.spec, dryRun.spec]

    /// The BRACKETING part of `relay capture --help`.
    static let bracketSection = CommandSpec.Section(
        title: "BRACKETING", options: bracketOptions,
        notes: [
            "relay sets the shutter speed, waits for the camera to confirm it, fires, and waits for the frame's photo (its "
                + "exposure time plus 10s) before the next frame: it never fires at a speed it did not see confirmed. "
                + "--bracket-range makes sets as a bracketing calculator does: frames --ev stops apart from the fast end, as many "
                + "as it takes for one to reach the slow end, --frames to a set, the last set filled up with slower frames. "
                + "The camera must be in M or S/Tv; a speed it does not offer becomes the nearest it does (said once). A "
                + "camera that goes away pauses the run at its frame; Ctrl-C stops after the frame under way (twice: at "
                + "once), and relay capture --resume fires only the frames not captured. Exit 0 only when every frame was "
                + "captured. PTP/IP cameras whose shutter speed relay can set: Nikon (ExposureTime 0x500D), Canon EOS (0xD102), "
                + "Sony (0xD20D)."
        ])

    /// The plan the bracketing options describe, nil when none is given.
    static func bracketPlan(_ args: Arguments) throws -> BracketPlan? {
        let list = try args.value(bracket)
        let range = try args.value(bracketRange)
        guard list != nil || range != nil else {
            if let stray = [frames.spec, ev.spec, sets.spec, dryRun.spec].first(where: args.gave) {
                throw CommandFailure(.usage, "\(stray.name) is for bracketing: give --bracket SPEEDS or --bracket-range FAST..SLOW")
            }
            return nil
        }
        if let timing = ([every.spec] + limits + [once.spec]).first(where: args.gave) {
            throw CommandFailure(.usage, "a bracketing run fires frame after frame: leave out \(timing.name)")
        }
        let sets = try args.value(sets) ?? 1
        do {
            if let list {
                guard range == nil else { throw CommandFailure(.usage, "give --bracket or --bracket-range, not both") }
                if let stray = [frames.spec, ev.spec].first(where: args.gave) {
                    throw CommandFailure(.usage, "\(stray.name) goes with --bracket-range; --bracket lists every speed itself")
                }
                return try BracketPlan.listed(list, sets: sets)
            }
            guard let frames = try args.value(frames), let ev = try args.value(ev) else {
                throw CommandFailure(.usage, "--bracket-range needs --frames N and --ev STOPS, e.g. --frames 5 --ev 1")
            }
            return try BracketPlan.covering(range: range ?? "", frames: frames, ev: try BracketPlan.spacing(ev), sets: sets)
        } catch let error as BracketPlanError {
            throw CommandFailure(.usage, error.description)
        }
    }
}
