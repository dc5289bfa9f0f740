import Foundation
import PTPWire
import RelayCore
import RunEvents
import Spool
import Tether

/// Runs a timed capture's ledger between the camera's thread (which fires the shots and sees
/// the photos) and the command (which keeps time while the camera is away and ends the run).
/// Every change is saved to `capture.json` before anyone acts on it; every shot's outcome and
/// the run's position are published on the run's bus, and the uploads of the shots' photos are
/// learnt from it.
///
public final class CaptureController: CaptureHook, Sendable {
    /// Seconds a fired shot may take to show its photo, beyond the exposure time the camera
    /// reports (Canon; other bodies report none, and the default covers exposures of a few seconds).
    public static let defaultShotTimeout = 10.0
    private let shotTimeout: TimeInterval

    /// What the controller knows, under one lock.
    private struct State: Sendable {
        var ledger: CaptureLedger
        /// Events of the change under way, published once the lock is let go (an observer of
        /// the bus may call back into the controller).
        var outbox: [CaptureEvent] = []
        var lastProgress: CaptureProgress?
        /// The destinations a shot's photo must reach to count as uploaded.
        var counted: Set<String> = []
        var connected = false
        var sessionStartedAt: Date?
        var pausedSince: Date?
        var saveProblem: String?
        /// Why the camera cannot be fired, once it said so; the run ends.
        var refused: String?
    }

    private let state: LockedBox<State>
    private let file: JSONStateFile<CaptureLedger>
    private let bus: RunEventBus
    /// Why the camera cannot be fired, once it said so; the run ends.
    public var refusal: String? { state.withLockedValue { $0.refused } }

    /// The ledger is saved at its first change (the first shot), so a run refused before it
    /// starts (a bad config) leaves the last run's file as it was.
    public init(ledger: CaptureLedger, file: URL, bus: RunEventBus, shotTimeout: TimeInterval = CaptureController.defaultShotTimeout) {
        state = LockedBox(State(ledger: ledger))
        self.shotTimeout = shotTimeout
        self.file = JSONStateFile(url: file)
        self.bus = bus
        bus.subscribe { [weak self] event in self?.observe(event.event) }
    }

    private func observe(_ event: RunEvent) {
        switch event {
        case .run(.started(let run)):
            state.withLockedValue { $0.counted = run.countedDestinations }
        case .upload(.settled(let photo, let destination, let outcome)):
            guard let shot = photo.shot else { return }
            let counted = state.withLockedValue { $0.counted }
            switch outcome {
            case .delivered: change { ledger in ledger.markUpload(shot, at: destination, delivered: true, counted: counted) }
            case .failed: change { ledger in ledger.markUpload(shot, at: destination, delivered: false, counted: counted) }
            case .retrying, .interrupted: break
            }
        default:
            break
        }
    }

    /// The saved run at `file`, if there is one.
    public static func load(_ file: URL) throws(StateFileError) -> CaptureLedger? {
        try JSONStateFile<CaptureLedger>(url: file).load()
    }

    public var snapshot: CaptureLedger { state.withLockedValue { $0.ledger } }

    // MARK: - The camera's side

    public func cameraReady(name: String, triggerProblem: String?) {
        state.withLockedValue { state in
            if let triggerProblem {
                state.refused = triggerProblem
                return
            }
            state.connected = true
            state.sessionStartedAt = Date()
            if !state.ledger.hasStarted { state.ledger.start(at: Date()) }
            state.ledger.bracket?.cameraReady(now: Date())
            if let since = state.pausedSince {
                state.outbox.append(.resumed(camera: name, afterSeconds: Date().timeIntervalSince(since)))
                state.pausedSince = nil
            }
        }
        publishOutbox()
    }

    public func cameraGone() {
        state.withLockedValue { state in
            guard state.connected else { return }
            state.connected = false
            state.ledger.bracket?.cameraGone()
            guard !state.ledger.isComplete else { return }
            state.pausedSince = Date()
            state.outbox.append(.paused)
        }
        publishOutbox()
    }

    public func takeDueShot() -> Int? {
        change { ledger in ledger.bracket == nil ? ledger.takeDue(now: Date(), cameraReady: true, reasonIfAway: "") : nil }
    }

    public func secondsUntilNextShot() -> Double? {
        state.withLockedValue { state in
            if let bracket = state.ledger.bracket { return bracket.isFinished ? nil : Self.bracketStepInterval }
            return state.ledger.nextDue.map { $0.timeIntervalSinceNow }
        }
    }

    // MARK: - Bracketing

    /// How often the camera's thread asks for the next bracketing step (a speed read back, a
    /// photo awaited) while a run is under way.
    static let bracketStepInterval = 0.05

    public var isBracketing: Bool { state.withLockedValue { $0.ledger.bracket != nil } }

    /// Refuses a body whose dial chooses the speed, or whose speed relay cannot set; fits the
    /// plan to the speeds it offers, saying each substitution once.
    public func exposureReady(_ control: ExposureControl?, camera: String) -> String? {
        let problem: String?
        if control == nil {
            problem =
                "\(camera) cannot be bracketed: relay cannot set its shutter speed (it lists no shutter-speed property "
                + "relay can write in this mode)"
        } else if let mode = control?.mode, !mode.allowsSettingShutterSpeed {
            problem =
                "\(camera) is in \(mode) mode, where the camera picks the shutter speed: turn its mode dial to M "
                + "(or S/Tv) and run relay capture --resume"
        } else {
            problem = nil
        }
        if let problem {
            change { ledger in ledger.bracket?.stop(because: problem) }
            state.withLockedValue { $0.refused = problem }
            return problem
        }
        let substitutions = change { ledger in ledger.bracket?.fit(to: control?.offered ?? []) ?? [] }
        for substitution in substitutions {
            bus.publish(.capture(.substituted(planned: substitution.planned.description, used: substitution.used.description)))
        }
        return nil
    }

    public func exposureStep(now: Date, photosPending: Bool) -> ExposureStep? {
        change { ledger -> ExposureStep? in
            guard ledger.bracket != nil else { return nil }
            let step = ledger.bracket?.next(now: now, photosPending: photosPending)
            ledger.mirrorBracketFrames()
            switch step {
            case .setSpeed(let frame): return .setSpeed(frame.speed)
            case .confirmSpeed(let frame, _): return .confirmSpeed(frame.speed)
            case .fire: return .fire
            default: return .idle
            }
        }
    }

    public func exposureConfirmed() {
        change { ledger in ledger.bracket?.speedConfirmed() }
    }

    public func exposureRefused(_ reason: String) {
        change { ledger in ledger.bracket?.speedNotConfirmed(reason) }
    }

    public func released(_ answer: PTPResponseCode) {
        let release: BracketRun.Release =
            answer.isOK ? .accepted : answer == .deviceBusy ? .busy : .refused("the camera answered \(answer) to the release")
        change { ledger in
            ledger.bracket?.fired(release, now: Date())
            ledger.mirrorBracketFrames()
        }
    }

    public func frameTag(ofShot shot: Int) -> BracketTag? {
        state.withLockedValue { state in
            guard let frames = state.ledger.bracket?.plan.frames, frames.indices.contains(shot - 1) else { return nil }
            let frame = frames[shot - 1]
            return BracketTag(set: frame.set, frame: frame.frame, exposure: frame.speed.description)
        }
    }

    /// Ctrl-C during a bracketing run: the frame under way ends, the rest stays for --resume.
    /// Returns false once asked before (the next Ctrl-C stops at once).
    public func requestStop() -> Bool {
        let first = change { ledger -> Bool in
            guard let bracket = ledger.bracket, !bracket.stopRequested, !bracket.isFinished else { return false }
            ledger.bracket?.requestStop()
            return true
        }
        if first {
            bus.publish(.capture(.notice("stopping after the frame under way (Ctrl-C again stops at once)", .info)))
        }
        return first
    }

    public func triggerAccepted(_ shot: Int, busyRetries: Int, exposureSeconds: Double?) {
        if let exposureSeconds, exposureSeconds >= 1 { change { ledger in ledger.triggerAccepted(shot, exposureSeconds: exposureSeconds) } }
        let planned = state.withLockedValue { $0.ledger.plannedShots }
        bus.publish(.capture(.fired(shot: shot, of: planned, busyRetries: busyRetries)))
    }

    public func triggerFailed(_ shot: Int, reason: String) {
        change { ledger in ledger.triggerFailed(shot, reason: reason) }
    }

    public func photoAppeared(fileName: String, wasOnCardAtConnect: Bool, willUpload: Bool) -> Int? {
        let before = wasOnCardAtConnect ? state.withLockedValue { $0.sessionStartedAt ?? .distantPast } : nil
        return change { ledger in ledger.photoAppeared(fileName: fileName, firedBefore: before, willUpload: willUpload) }
    }

    // MARK: - The command's side

    /// Keeps time while the camera is away (due shots are missed) and fails shots whose photo
    /// did not come in time.
    public func tick() {
        let connected = state.withLockedValue { $0.connected }
        change { ledger in
            guard ledger.bracket == nil else { return }
            let now = Date()
            if !connected { _ = ledger.takeDue(now: now, cameraReady: false, reasonIfAway: "the camera was not connected") }
            _ = ledger.expire(now: now, timeout: shotTimeout)
        }
    }

    /// Every shot has fallen due and none waits for its photo.
    public var isComplete: Bool { state.withLockedValue { $0.ledger.isComplete } }

    /// Captured shots whose photo is not uploaded yet.
    public var uploadsPending: Int { state.withLockedValue { $0.ledger.uploadsPending } }

    /// Ends the run: marks it ended when it is complete (or `force`), and returns its summary.
    public func finish(stopped: Bool) -> String {
        let refused = refusal
        return change { ledger in
            if let bracket = ledger.bracket {
                ledger.ended = bracket.isComplete
            } else if ledger.isComplete || refused != nil {
                ledger.ended = true
            }
            return ledger.summary(stopped: stopped)
        }
    }

    /// Applies `body` to the ledger, publishes the shots whose outcome it settled and the run's
    /// new position, and saves.
    private func change<T>(_ body: (inout CaptureLedger) -> T) -> T {
        let result = state.withLockedValue { state in
            let before = state.ledger
            let result = body(&state.ledger)
            if state.ledger != before { record(&state, since: before) }
            return result
        }
        publishOutbox()
        return result
    }

    /// Queues the events of a change from `before` and saves the ledger (under the lock).
    private func record(_ state: inout State, since before: CaptureLedger) {
        let ledger = state.ledger
        let planned = ledger.plannedShots
        if let run = ledger.bracket {
            for (index, outcome) in run.outcomes.sorted(by: { $0.key < $1.key }) where before.bracket?.outcomes[index] != outcome {
                let frame = run.plan.frames[index]
                let report: BracketFrameReport.State =
                    switch outcome {
                    case .captured(let name): .captured(fileName: name)
                    case .failed(let reason): .failed(reason: reason)
                    }
                state.outbox.append(
                    .frame(
                        BracketFrameReport(
                            set: frame.set, frame: frame.frame, of: run.plan.frames.count, speed: frame.speed.description, state: report)))
            }
        }
        for shot in ledger.shots where ledger.bracket == nil && before.shot(shot.number)?.outcome != shot.outcome {
            switch shot.outcome {
            case .triggered: break
            case .captured: state.outbox.append(.captured(shot: shot.number, of: planned, fileName: shot.fileName ?? ""))
            case .failed: state.outbox.append(.failed(shot: shot.number, of: planned, reason: shot.reason ?? ""))
            case .missed: state.outbox.append(.missed(shot: shot.number, of: planned, reason: shot.reason ?? ""))
            }
        }
        do {
            try file.save(ledger)
            state.saveProblem = nil
        } catch {
            if state.saveProblem == nil {
                state.outbox.append(
                    .notice("the capture state could not be saved (\(error)); --resume would start from an older state", .warning))
            }
            state.saveProblem = "\(error)"
        }
    }

    /// Publishes what the last change queued, then the run's position if it moved.
    private func publishOutbox() {
        let (events, progress) = state.withLockedValue { state -> ([CaptureEvent], CaptureProgress?) in
            let events = state.outbox
            state.outbox = []
            let progress = Self.progress(of: state)
            guard progress != state.lastProgress else { return (events, nil) }
            state.lastProgress = progress
            return (events, progress)
        }
        for event in events { bus.publish(.capture(event)) }
        if let progress { bus.publish(.capture(.progress(progress))) }
    }

    /// The run's position.
    private static func progress(of state: State) -> CaptureProgress {
        let ledger = state.ledger
        let counts = ledger.counts
        let frame = ledger.bracket.flatMap { run in
            run.current.map { "set \($0.set), frame \($0.frame) (\($0.speed))" }
        }
        return CaptureProgress(
            shot: counts.lastNumber, planned: ledger.plannedShots, captured: counts.captured, failed: counts.failed,
            missed: counts.missed, uploaded: counts.uploaded, nextShotAt: ledger.bracket == nil ? ledger.nextDue : nil,
            waitingForPhotos: ledger.waiting, uploadsPending: ledger.uploadsPending, paused: state.pausedSince != nil, frame: frame)
    }
}
