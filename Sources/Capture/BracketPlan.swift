import Foundation
import PTPWire

/// One exposure of a bracketing run: its set, its place in the set (both from 1) and its speed.
public struct BracketFrame: Codable, Equatable, Sendable {
    public var set: Int
    public var frame: Int
    public var speed: ShutterSpeed

    public init(set: Int, frame: Int, speed: ShutterSpeed) {
        self.set = set
        self.frame = frame
        self.speed = speed
    }
}

/// A planned speed the body does not offer, and the nearest one it does.
public struct BracketSubstitution: Codable, Equatable, Sendable, CustomStringConvertible {
    public var planned: ShutterSpeed
    public var used: ShutterSpeed

    public var description: String { "\(planned) → \(used)" }
}

/// What a bracketing run fires, frame by frame: the same frame at several shutter speeds, in
/// sets (an HDR set each). Pure: made from the command line, then fitted to the speeds the body
/// offers before the first frame.
public struct BracketPlan: Codable, Equatable, Sendable {
    public private(set) var frames: [BracketFrame]

    public init(frames: [BracketFrame]) {
        self.frames = frames
    }

    /// The most exposures one run plans.
    public static let maximumFrames = 1000
    /// Frames per set a range is cut into (`--frames`).
    public static let framesPerSet = 2...19
    /// Stops between frames (`--ev`).
    public static let spacing = (1.0 / 3 - 1e-9)...5

    public var sets: Int { frames.last?.set ?? 0 }

    // MARK: - Making a plan

    /// `--bracket 1/1000,1/250,1/60,1/15`: one frame at each speed, in the order given, the list
    /// repeated `sets` times (a set each).
    public static func listed(_ text: String, sets: Int = 1) throws(BracketPlanError) -> BracketPlan {
        var speeds: [ShutterSpeed] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            do { speeds.append(try ShutterSpeed.parse(String(item))) } catch { throw .speed(error) }
        }
        guard !speeds.isEmpty else { throw .empty }
        return try repeated([speeds], sets: sets)
    }

    /// `--bracket-range FAST..SLOW --frames N --ev E`, as a bracketing calculator makes the sets:
    /// frames E stops apart from the fast end, as many as it takes for one to reach the slow end,
    /// grouped N to a set; the last set is filled up with slower frames, so every set has N.
    /// Each speed is the body's mark nearest it (within a sixth of a stop of the third-stop
    /// scale). `sets` repeats the whole plan.
    public static func covering(range: String, frames: Int, ev: Double, sets: Int = 1) throws(BracketPlanError) -> BracketPlan {
        let ends = range.components(separatedBy: "..")
        guard ends.count == 2 else { throw .range(range) }
        var bounds: [ShutterSpeed] = []
        for end in ends {
            do { bounds.append(try ShutterSpeed.parse(end)) } catch { throw .speed(error) }
        }
        let (fast, slow) = (min(bounds[0], bounds[1]), max(bounds[0], bounds[1]))
        guard framesPerSet.contains(frames) else { throw .framesPerSet(frames) }
        guard spacing.contains(ev) else { throw .spacing(ev) }
        let needed = Int((slow.stops(from: fast) / ev - 1e-6).rounded(.up)) + 1
        let setCount = (needed + frames - 1) / frames
        guard setCount * frames * sets <= maximumFrames else { throw .tooMany(setCount * frames * sets) }
        var groups: [[ShutterSpeed]] = []
        for set in 0..<setCount {
            groups.append(
                (0..<frames).compactMap { index in
                    fast.adding(stops: Double(set * frames + index) * ev).map(Self.marked)
                })
        }
        return try repeated(groups, sets: sets)
    }

    /// `--ev`: `1`, `0.7`, `2/3`, `1/3`, `1.5`.
    public static func spacing(_ text: String) throws(BracketPlanError) -> Double {
        let parts = text.split(separator: "/")
        let value: Double?
        if parts.count == 2, let top = Double(parts[0]), let bottom = Double(parts[1]), bottom > 0 {
            value = top / bottom
        } else {
            value = parts.count == 1 ? Double(text) : nil
        }
        // Cameras write a third of a stop as 0.3 and two thirds as 0.7.
        guard var stops = value else { throw .spacingText(text) }
        if abs(stops * 3 - (stops * 3).rounded()) < 0.15 { stops = (stops * 3).rounded() / 3 }
        guard spacing.contains(stops) else { throw .spacing(stops) }
        return stops
    }

    /// The third-stop mark within a sixth of a stop of `speed`, else `speed` itself.
    static func marked(_ speed: ShutterSpeed) -> ShutterSpeed {
        guard let mark = speed.nearest(in: ShutterSpeed.thirdStops), abs(mark.stops(from: speed)) < 1.0 / 6 else { return speed }
        return mark
    }

    private static func repeated(_ groups: [[ShutterSpeed]], sets: Int) throws(BracketPlanError) -> BracketPlan {
        guard sets >= 1 else { throw .sets(sets) }
        let total = groups.reduce(0) { $0 + $1.count } * sets
        guard total <= maximumFrames else { throw .tooMany(total) }
        var frames: [BracketFrame] = []
        for round in 0..<sets {
            for (index, group) in groups.enumerated() {
                let set = round * groups.count + index + 1
                frames += group.enumerated().map { BracketFrame(set: set, frame: $0.offset + 1, speed: $0.element) }
            }
        }
        return BracketPlan(frames: frames)
    }

    // MARK: - Fitting it to the body

    /// The plan with each speed the body does not offer replaced by the nearest it does (of two
    /// as near, the longer), and the substitutions made, each once.
    public func fitted(to offered: [ShutterSpeed]) -> (plan: BracketPlan, substitutions: [BracketSubstitution]) {
        guard !offered.isEmpty else { return (self, []) }
        var substitutions: [BracketSubstitution] = []
        var fitted = self
        for index in fitted.frames.indices {
            let planned = fitted.frames[index].speed
            guard !offered.contains(planned), let used = planned.nearest(in: offered) else { continue }
            fitted.frames[index].speed = used
            let substitution = BracketSubstitution(planned: planned, used: used)
            if !substitutions.contains(substitution) { substitutions.append(substitution) }
        }
        return (fitted, substitutions)
    }

    // MARK: - Saying it

    /// The exposures' time added up.
    public var totalExposureSeconds: Double { frames.reduce(0) { $0 + $1.speed.seconds } }

    /// Time a frame takes besides its exposure: set the speed, see it confirmed, fire, see the
    /// photo on the card (measured against the simulator; a body writing a large file may take
    /// longer).
    public static let secondsPerFrame = 1.5

    /// The run's likely length: the exposures plus `secondsPerFrame` a frame.
    public var estimatedSeconds: Double { totalExposureSeconds + Double(frames.count) * Self.secondsPerFrame }

    /// `--dry-run`'s account of the plan.
    public var summary: [String] {
        let perSet = frames.filter { $0.set == 1 }.count
        var lines = ["bracketing: \(sets) set(s) of \(perSet) frames, \(frames.count) exposures"]
        for set in 1...max(1, sets) {
            let speeds = frames.filter { $0.set == set }.map(\.speed.description)
            lines.append("  set \(set): " + speeds.joined(separator: "  "))
        }
        lines.append(
            String(
                format:
                    "total exposure time %@; estimated duration %@ (%.1f s a frame to set the speed, fire and save, plus the exposures)",
                Self.duration(totalExposureSeconds), Self.duration(estimatedSeconds), Self.secondsPerFrame))
        return lines
    }

    /// "0.4 s", "1 min 5 s".
    static func duration(_ seconds: Double) -> String {
        if seconds < 10 { return String(format: "%.1f s", seconds) }
        let whole = Int(seconds.rounded())
        return whole < 60 ? "\(whole) s" : "\(whole / 60) min \(whole % 60) s"
    }
}

/// A bracketing plan relay could not make, with the forms it takes.
public enum BracketPlanError: Error, Equatable, CustomStringConvertible {
    case speed(ShutterSpeedError)
    case empty
    case range(String)
    case framesPerSet(Int)
    case spacing(Double)
    case spacingText(String)
    case sets(Int)
    case tooMany(Int)

    public var description: String {
        switch self {
        case .speed(let error): return "--bracket: \(error)"
        case .empty: return "--bracket needs at least one shutter speed, e.g. --bracket 1/1000,1/250,1/60,1/15"
        case .range(let text): return "--bracket-range takes FAST..SLOW, e.g. 1/1000..1/4, not '\(text)'"
        case .framesPerSet(let frames):
            return "--frames \(frames): a set has \(BracketPlan.framesPerSet.lowerBound) to \(BracketPlan.framesPerSet.upperBound) frames"
        case .spacing(let stops): return String(format: "--ev %.2f: frames are 1/3 to 5 stops apart", stops)
        case .spacingText(let text): return "--ev '\(text)' is not a number of stops: write 1, 0.7, 2/3 or 1.5"
        case .sets(let sets): return "--sets \(sets): give 1 or more"
        case .tooMany(let count): return "the plan has \(count) exposures; relay fires at most \(BracketPlan.maximumFrames) in one run"
        }
    }
}
