import Foundation

/// The state of a timed capture run: its schedule, and what became of each shot. Persisted after
/// every change (`capture.json`), so `relay capture --resume` continues where a stopped or
/// crashed run left off. Pure: the caller passes the time in.
///
/// The schedule starts when the camera is first ready (`start(at:)`): shot n falls due at
/// `anchor + (n - anchorNumber) × interval`. A shot is fired when it falls
/// due while the camera is connected; it is *missed* when it falls due while the camera is away
/// (or the camera was kept busy until the next shot fell due), *captured* when a new photo
/// appears after its trigger, *failed* when the trigger was refused or no photo came in time.
public struct CaptureLedger: Codable, Equatable, Sendable {
    public enum Outcome: String, Codable, Sendable {
        /// Fired; the camera has not shown its photo yet.
        case triggered
        case captured
        case failed
        case missed
    }

    public struct Shot: Codable, Equatable, Sendable {
        public var number: Int
        public var dueAt: Date
        public var outcome: Outcome
        public var triggeredAt: Date?
        /// Since when its photo is awaited (the trigger, or the restart of a resumed run).
        public var awaitedSince: Date?
        /// The exposure time the camera reported when the shot was fired: its photo is awaited
        /// that much longer.
        public var exposureSeconds: Double?
        /// The camera's name for the shot's first photo.
        public var fileName: String?
        /// Why it failed or was missed.
        public var reason: String?
        /// A photo of this shot is to be uploaded (a JPEG, or RAW with `--include-raw`).
        public var uploadExpected = false
        /// At every destination that counts (``markUpload(_:at:delivered:counted:)``).
        public var uploaded = false
        /// A destination that counts refused it for good.
        public var uploadFailed = false
        /// The destinations its photo was delivered to, so a resumed run counts what an earlier
        /// one delivered (nil in a ledger saved before they were recorded).
        public var deliveredTo: Set<String>?

        var awaitsUpload: Bool { uploadExpected && !uploaded && !uploadFailed }
    }

    /// Seconds between shots (at least 1).
    public let interval: Double
    /// Shots in the run (`--count`), or nil.
    public let total: Int?
    /// No shot falls due at or after this time (`--until`, `--for`), or nil.
    public let endsAt: Date?
    /// The command line that started the run, for `--resume`.
    public let arguments: [String]
    /// Recent shots, oldest first: at most `keptShots`, and every shot still waiting for its photo.
    public private(set) var shots: [Shot] = []
    public private(set) var counts = Counts()
    private var anchorNumber = 1
    /// When shot `anchorNumber` falls due; nil until the camera is ready.
    private var anchor: Date?
    /// The run ended (its schedule done, or given up); `--resume` has nothing to continue.
    public var ended = false
    /// The run's session name, fixed when it starts so `--resume` completes the same set
    /// (nil in a ledger written before capture runs were sessions).
    public var session: String?
    /// A bracketing run's plan and position (`--bracket`), nil for a timed capture. Its frames
    /// are the run's shots, numbered from 1 in plan order; each settled frame is mirrored in
    /// `shots` so uploads are counted as for any shot.
    public var bracket: BracketRun?
    /// The bracketing outcomes already recorded as shots, by frame index (optional: a ledger saved
    /// before bracketing has none).
    private var mirrored: [Int: BracketRun.Outcome]?

    public struct Counts: Codable, Equatable, Sendable {
        public var fired = 0
        public var captured = 0
        public var failed = 0
        public var missed = 0
        public var uploaded = 0
        /// The number of the last shot that fell due.
        public var lastNumber = 0
    }

    /// Shots kept in detail: enough to match a late photo or RAW companion to its shot.
    static let keptShots = 64

    public init(interval: Double, total: Int?, endsAt: Date?, arguments: [String]) {
        self.interval = max(CaptureTiming.minimumInterval, interval)
        self.total = total
        self.endsAt = endsAt
        self.arguments = arguments
    }

    /// A bracketing run of `plan`: its frames fire one after the other, no schedule.
    public init(bracket plan: BracketPlan, arguments: [String]) {
        self.init(interval: CaptureTiming.minimumInterval, total: plan.frames.count, endsAt: nil, arguments: arguments)
        bracket = BracketRun(plan: plan)
    }

    /// Starts the schedule (the first shot falls due at `now`), unless it runs already.
    public mutating func start(at now: Date) {
        guard anchor == nil else { return }
        anchor = now
        for index in shots.indices where shots[index].outcome == .triggered && shots[index].awaitedSince == nil {
            shots[index].awaitedSince = now
        }
    }

    public var hasStarted: Bool { anchor != nil }

    /// How many shots the run has: `--count`, or those that fall due before `--until`/`--for`
    /// (known once the schedule is anchored), or nil for a run until stopped.
    public var plannedShots: Int? {
        if let total { return total }
        guard let endsAt, let anchor else { return nil }
        let span = endsAt.timeIntervalSince(anchor)
        let more = span <= 0 ? 0 : Int((span / interval).rounded(.up))
        return anchorNumber - 1 + more
    }

    public var nextNumber: Int { counts.lastNumber + 1 }

    /// When shot `number` falls due; nil when it is not part of the run.
    public func dueTime(of number: Int) -> Date? {
        if let total, number > total { return nil }
        guard let anchor else { return nil }
        let due = anchor.addingTimeInterval(Double(number - anchorNumber) * interval)
        if let endsAt, due >= endsAt { return nil }
        return due
    }

    /// When the next shot falls due; nil when every shot has fallen due.
    public var nextDue: Date? { dueTime(of: nextNumber) }

    /// Shots fired whose photo has not appeared yet.
    public var waiting: Int { shots.filter { $0.outcome == .triggered }.count }

    /// Every shot has fallen due and none waits for its photo (uploads may still be going); a
    /// bracketing run: every frame dealt with, or the run stopped.
    public var isComplete: Bool {
        if let bracket { return bracket.isFinished }
        return hasStarted && nextDue == nil && waiting == 0
    }

    /// Takes the shots that have fallen due by `now`: returns the number of the one to fire, if
    /// the camera is ready and the next shot is not due already; the others are missed, with
    /// `reasonIfAway` (camera away) as the reason.
    public mutating func takeDue(now: Date, cameraReady: Bool, reasonIfAway: String) -> Int? {
        while let due = nextDue, due <= now {
            let number = nextNumber
            counts.lastNumber = number
            let followingDue = dueTime(of: number + 1).map { $0 <= now } ?? false
            if cameraReady && !followingDue {
                counts.fired += 1
                append(Shot(number: number, dueAt: due, outcome: .triggered, triggeredAt: now, awaitedSince: now))
                return number
            }
            counts.missed += 1
            let reason = cameraReady ? "the camera was busy with earlier work until the next shot fell due" : reasonIfAway
            append(Shot(number: number, dueAt: due, outcome: .missed, reason: reason))
        }
        return nil
    }

    /// The camera took the trigger of `number` with an exposure of `seconds` (nil: unknown).
    public mutating func triggerAccepted(_ number: Int, exposureSeconds seconds: Double?) {
        guard let index = shots.firstIndex(where: { $0.number == number }) else { return }
        shots[index].exposureSeconds = seconds
    }

    /// The trigger of `number` did not make the camera shoot.
    public mutating func triggerFailed(_ number: Int, reason: String) {
        settle(number, as: .failed, reason: reason)
    }

    /// A new photo appeared: the shot it belongs to, if any. A RAW or JPEG companion of a shot's
    /// photo (same name, other extension) belongs to that shot; otherwise the photo confirms the
    /// oldest shot waiting for one (only one fired before `firedBefore`, when given: a photo that
    /// was on the card when the camera connected cannot come from a later trigger).
    /// `willUpload`: relay takes this photo (not a RAW left on the card).
    public mutating func photoAppeared(fileName: String, firedBefore: Date?, willUpload: Bool) -> Int? {
        let stem = Self.stem(fileName)
        if let companion = shots.lastIndex(where: { $0.fileName.map(Self.stem) == stem }) {
            if willUpload { shots[companion].uploadExpected = true }
            return shots[companion].number
        }
        if bracket != nil {
            guard let index = bracket?.photoAppeared(fileName: fileName) else { return nil }
            mirrorBracketFrames()
            if let shot = shots.lastIndex(where: { $0.number == index + 1 }) { shots[shot].uploadExpected = willUpload }
            return index + 1
        }
        guard
            let index = shots.firstIndex(where: { shot in
                shot.outcome == .triggered && (firedBefore.map { (shot.triggeredAt ?? .distantFuture) < $0 } ?? true)
            })
        else { return nil }
        shots[index].outcome = .captured
        shots[index].fileName = fileName
        shots[index].uploadExpected = willUpload
        counts.captured += 1
        return shots[index].number
    }

    /// Fails the shots whose photo has not appeared within `timeout` (plus the shot's exposure
    /// time) of their trigger; returns them.
    public mutating func expire(now: Date, timeout: Double) -> [Shot] {
        var expired: [Shot] = []
        for index in shots.indices where shots[index].outcome == .triggered {
            let limit = timeout + (shots[index].exposureSeconds ?? 0)
            guard let since = shots[index].awaitedSince, now.timeIntervalSince(since) > limit else { continue }
            shots[index].outcome = .failed
            shots[index].reason = String(format: "no photo from the camera within %.0fs of the trigger", limit)
            counts.failed += 1
            expired.append(shots[index])
        }
        return expired
    }

    /// A shot's photo was delivered to `destination`, or refused there for good. The shot is
    /// uploaded once every destination in `counted` (the run's ``RunDescription/countedDestinations``)
    /// has it, whatever order they were named in; a refusal elsewhere fails nothing.
    public mutating func markUpload(_ number: Int, at destination: String, delivered: Bool, counted: Set<String>) {
        guard let index = shots.firstIndex(where: { $0.number == number }) else { return }
        if delivered { shots[index].deliveredTo = (shots[index].deliveredTo ?? []).union([destination]) }
        guard !shots[index].uploaded, counted.contains(destination) else { return }
        if !delivered {
            shots[index].uploadFailed = true
        } else if counted.isSubset(of: shots[index].deliveredTo ?? []) {
            shots[index].uploaded = true
            counts.uploaded += 1
        }
    }

    /// Captured shots whose photo is still on its way to a destination that counts.
    public var uploadsPending: Int { shots.filter(\.awaitsUpload).count }

    /// Continues a stopped run: once the camera is ready the next shot falls due at once, then
    /// every interval; shots that waited for their photo wait again from then (the photo may be
    /// on the card, taken while relay was stopped).
    public mutating func resume() {
        bracket?.resume()
        anchorNumber = nextNumber
        anchor = nil
        for index in shots.indices where shots[index].outcome == .triggered {
            shots[index].awaitedSince = nil
        }
        ended = false
    }

    public func shot(_ number: Int) -> Shot? { shots.first { $0.number == number } }

    /// Records each frame the bracketing run settled since the last call as a shot (number: its
    /// place in the plan from 1), so the shot's photo and upload are followed as in a timed
    /// capture. Each outcome is mirrored once, even after its shot left the kept ones.
    public mutating func mirrorBracketFrames() {
        guard let bracket else { return }
        for (index, outcome) in bracket.outcomes.sorted(by: { $0.key < $1.key }) where mirrored?[index] != outcome {
            let previous = mirrored?[index]
            mirrored = (mirrored ?? [:]).merging([index: outcome]) { $1 }
            let number = index + 1
            let existing = shots.lastIndex { $0.number == number }
            switch outcome {
            case .captured(let fileName):
                if case .failed = previous { counts.failed -= 1 }
                var shot = existing.map { shots[$0] } ?? Shot(number: number, dueAt: Date(), outcome: .captured)
                shot.outcome = .captured
                shot.fileName = fileName
                shot.reason = nil
                if let existing { shots[existing] = shot } else { append(shot) }
                counts.captured += 1
            case .failed(let reason):
                if previous == nil { counts.failed += 1 }
                if let existing {
                    shots[existing].outcome = .failed
                    shots[existing].reason = reason
                } else {
                    append(Shot(number: number, dueAt: Date(), outcome: .failed, reason: reason))
                }
            }
            counts.lastNumber = max(counts.lastNumber, number)
        }
    }

    /// A bracketing run that did not capture every frame: why it exits 1.
    public var bracketIncomplete: String? {
        guard let bracket, !bracket.isComplete else { return nil }
        return "not every exposure was captured (\(bracket.summary))"
    }

    /// The run's verdict for its exit code: shots fell due and not one was captured (each failed
    /// or was missed), so the work failed, however the run ended. A run with some shots captured
    /// succeeded in part: its summary counts the failed ones. Nil when nothing failed that way.
    public var nothingCaptured: String? {
        guard counts.lastNumber > 0, counts.captured == 0, waiting == 0 else { return nil }
        let last = shots.last { $0.outcome == .failed || $0.outcome == .missed }
        return "no shot was captured" + (last?.reason.map { " (last: \($0))" } ?? "")
    }

    private mutating func settle(_ number: Int, as outcome: Outcome, reason: String) {
        guard let index = shots.firstIndex(where: { $0.number == number }), shots[index].outcome == .triggered else { return }
        shots[index].outcome = outcome
        shots[index].reason = reason
        counts.failed += 1
    }

    private mutating func append(_ shot: Shot) {
        shots.append(shot)
        while shots.count > Self.keptShots,
            let index = shots.firstIndex(where: { $0.outcome != .triggered && !$0.awaitsUpload })
        {
            shots.remove(at: index)
        }
    }

    static func stem(_ fileName: String) -> String {
        let upper = fileName.uppercased()
        guard let dot = upper.lastIndex(of: ".") else { return upper }
        return String(upper[..<dot])
    }

    // MARK: - Words

    /// "shot 3 of 10 · next in 0.4s" for the progress line.
    public func progress(now: Date) -> String {
        var text = "shot \(counts.lastNumber)" + (plannedShots.map { " of \($0)" } ?? "")
        if let due = nextDue {
            text += String(format: " · next in %.1fs", max(0, due.timeIntervalSince(now)))
        } else if waiting > 0 {
            text += " · waiting for the last photo"
        }
        return text
    }

    /// The end-of-run summary: "120 of 120 captured, 120 uploaded", or for a run stopped early
    /// "stopped at shot 8 of 15: 7 captured, 1 failed".
    public func summary(stopped: Bool) -> String {
        let c = counts
        if let bracket { return bracket.summary + "; \(c.uploaded) uploaded" }
        var parts = ["\(c.captured) captured"]
        if c.failed > 0 { parts.append("\(c.failed) failed") }
        if c.missed > 0 { parts.append("\(c.missed) missed") }
        if waiting > 0 { parts.append("\(waiting) waiting for the camera") }
        let planned = plannedShots
        if stopped && !isComplete {
            let of = planned.map { " of \($0)" } ?? ""
            return "stopped at shot \(c.lastNumber)\(of): " + parts.joined(separator: ", ") + "; \(c.uploaded) uploaded"
        }
        parts[0] = "\(c.captured) of \(planned ?? c.lastNumber) captured"
        return ([parts[0], "\(c.uploaded) uploaded"] + parts.dropFirst()).joined(separator: ", ")
    }
}
