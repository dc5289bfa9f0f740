import Foundation
import PTPWire
import RelayCore

/// Where a bracketing run stands, and what the camera's thread does next. Pure: the caller
/// passes the time and what the camera did; persisted with the run, so `relay capture --resume`
/// fires only the frames not captured, with the same plan.
///
/// A frame goes: set its speed → the body confirms it (its change event or a read back) → fire
/// → its photo appears. The shutter is never released before the body confirmed the frame's
/// speed. DeviceBusy on the release is asked again up to three times; a photo is awaited the
/// exposure time plus `photoTimeout`. A camera that goes away pauses the run: the frame under
/// way starts again from its speed when the camera is back, unless it was fired, whose photo is
/// then awaited afresh.
public struct BracketRun: Codable, Equatable, Sendable {
    /// What the camera's thread does now.
    public enum Step: Equatable, Sendable {
        /// Write this frame's speed, then report `speedConfirmed` or `speedNotConfirmed`.
        case setSpeed(BracketFrame)
        /// The speed was written: read it back (or wait for its change event) until `until`.
        case confirmSpeed(BracketFrame, until: Date)
        /// Release the shutter, then report `fired`.
        case fire(BracketFrame)
        /// Nothing to do before `until` (a busy back-off, or the photo of a fired frame).
        case wait(until: Date)
        /// The camera is away: nothing is fired until it is back.
        case paused
        /// Every frame is dealt with, or the run was stopped.
        case finished
    }

    /// What became of one frame.
    public enum Outcome: Codable, Equatable, Sendable {
        case captured(fileName: String)
        case failed(reason: String)
    }

    /// What the release answered.
    public enum Release: Equatable, Sendable {
        case accepted
        case busy
        case refused(String)
    }

    enum Phase: Codable, Equatable {
        case ready
        case setting(deadline: Date)
        case confirmed
        /// The release was asked for and its answer not reported yet.
        case releasing
        case busyBackOff(until: Date)
        case awaitingPhoto(deadline: Date)
        /// The camera went away during the release: it may or may not have fired. Its photo is
        /// awaited; none by the deadline means it did not, and the frame is fired again.
        case awaitingUncertainPhoto(deadline: Date)
    }

    public private(set) var plan: BracketPlan
    /// Outcome per frame index, for the frames dealt with.
    public private(set) var outcomes: [Int: Outcome] = [:]
    /// The frame under way or next, by index in the plan.
    public private(set) var position: Int
    private var phase = Phase.ready
    private var busyAnswers = 0
    private var connected = false
    /// Ctrl-C: stop after the frame under way.
    public private(set) var stopRequested = false
    /// Why the run stopped by itself (a speed the body would not take), nil otherwise.
    public private(set) var stopReason: String?

    /// Releases tried per frame while the body answers DeviceBusy.
    public static let releaseAttempts = ReleaseRetry.attempts
    /// Back-off after the n-th busy answer: 0.3 s, then 0.6 s.
    static func backOff(after busy: Int) -> Double { ReleaseRetry.backoff.ceiling(attempt: busy - 1) }
    /// How long the body has to confirm a speed.
    public static let confirmTimeout = 5.0
    /// A photo is awaited its exposure time plus this (a 30 s exposure is not a failure).
    public static let photoTimeout = 10.0

    public init(plan: BracketPlan) {
        self.plan = plan
        position = 0
    }

    /// The frame under way or next; nil once every frame was dealt with.
    public var current: BracketFrame? { position < plan.frames.count ? plan.frames[position] : nil }

    public var captured: Int { outcomes.values.filter { if case .captured = $0 { true } else { false } }.count }

    /// Every frame captured.
    public var isComplete: Bool { captured == plan.frames.count }

    // MARK: - What the camera did

    public mutating func cameraReady(now: Date) {
        connected = true
        guard let frame = current else { return }
        let deadline = now.addingTimeInterval(frame.speed.seconds + Self.photoTimeout)
        switch phase {
        case .awaitingPhoto: phase = .awaitingPhoto(deadline: deadline)
        case .awaitingUncertainPhoto: phase = .awaitingUncertainPhoto(deadline: deadline)
        default: break
        }
    }

    /// The camera went away. A frame whose release was under way may have been taken: its photo
    /// is awaited once the camera is back, and the frame fired again only if none comes.
    public mutating func cameraGone() {
        connected = false
        switch phase {
        case .awaitingPhoto, .awaitingUncertainPhoto: break
        case .releasing: phase = .awaitingUncertainPhoto(deadline: .distantFuture)
        default: phase = .ready
        }
    }

    /// Ctrl-C: the frame under way ends, the rest stays for `--resume`.
    public mutating func requestStop() { stopRequested = true }

    /// The body reports the frame's speed.
    public mutating func speedConfirmed() {
        if case .setting = phase { phase = .confirmed }
    }

    /// The body would not take the frame's speed, or did not confirm it in time: the run stops
    /// there rather than fire at a speed not planned.
    public mutating func speedNotConfirmed(_ reason: String) {
        guard let frame = current else { return }
        stopReason = "set \(frame.set), frame \(frame.frame): \(reason)"
        phase = .ready
    }

    /// The body cannot be bracketed as it is (its dial picks the speed): nothing is fired.
    public mutating func stop(because reason: String) {
        stopReason = reason
        phase = .ready
    }

    /// What the release answered.
    public mutating func fired(_ release: Release, now: Date) {
        guard case .releasing = phase, let frame = current else { return }
        switch release {
        case .accepted:
            busyAnswers = 0
            phase = .awaitingPhoto(deadline: now.addingTimeInterval(frame.speed.seconds + Self.photoTimeout))
        case .busy:
            busyAnswers += 1
            if busyAnswers >= Self.releaseAttempts {
                finish(.failed(reason: "the camera answered DeviceBusy \(busyAnswers) times"))
            } else {
                phase = .busyBackOff(until: now.addingTimeInterval(Self.backOff(after: busyAnswers)))
            }
        case .refused(let reason):
            finish(.failed(reason: reason))
        }
    }

    /// A new photo appeared on the camera: the index of the frame it is, if one was fired and
    /// awaits it.
    public mutating func photoAppeared(fileName: String) -> Int? {
        switch phase {
        case .awaitingPhoto, .awaitingUncertainPhoto: break
        default: return nil
        }
        guard current != nil else { return nil }
        let index = position
        finish(.captured(fileName: fileName))
        return index
    }

    /// Fits the frames not captured yet to the speeds the body offers (see
    /// `BracketPlan.fitted(to:)`); returns the substitutions made.
    public mutating func fit(to offered: [ShutterSpeed]) -> [BracketSubstitution] {
        let (fitted, substitutions) = plan.fitted(to: offered)
        var frames = plan.frames
        for index in frames.indices where !isCaptured(index) { frames[index] = fitted.frames[index] }
        plan = BracketPlan(frames: frames)
        return substitutions
    }

    /// Every frame is dealt with, or the run stopped (by itself, or asked to between frames).
    public var isFinished: Bool {
        stopReason != nil || current == nil || (stopRequested && phase == .ready)
    }

    private func isCaptured(_ index: Int) -> Bool {
        if case .captured = outcomes[index] { return true }
        return false
    }

    // MARK: - What to do

    /// The next step at `now`; deadlines that passed are settled first. `photosPending`: the
    /// camera announced photos not looked at yet, so an awaited photo is not given up meanwhile.
    public mutating func next(now: Date, photosPending: Bool = false) -> Step {
        while true {
            guard stopReason == nil, let frame = current else { return .finished }
            switch phase {
            case .ready:
                if stopRequested { return .finished }
                guard connected else { return .paused }
                if isCaptured(position) {
                    position += 1
                    continue
                }
                phase = .setting(deadline: now.addingTimeInterval(Self.confirmTimeout))
                return .setSpeed(frame)
            case .setting(let deadline):
                guard connected else { return .paused }
                if now >= deadline {
                    speedNotConfirmed("the camera did not confirm \(frame.speed) within \(Int(Self.confirmTimeout)) s")
                    continue
                }
                return .confirmSpeed(frame, until: deadline)
            case .confirmed:
                guard connected else { return .paused }
                phase = .releasing
                return .fire(frame)
            case .releasing:
                // The release's answer is being reported: nothing else meanwhile.
                return .wait(until: now)
            case .busyBackOff(let until):
                guard connected else { return .paused }
                if now < until { return .wait(until: until) }
                phase = .releasing
                return .fire(frame)
            case .awaitingPhoto(let deadline):
                guard connected else { return .paused }
                if now < deadline || photosPending { return .wait(until: max(deadline, now)) }
                finish(.failed(reason: "no photo came within \(Int(frame.speed.seconds + Self.photoTimeout)) s of the release"))
            case .awaitingUncertainPhoto(let deadline):
                guard connected else { return .paused }
                if now < deadline || photosPending { return .wait(until: max(deadline, now)) }
                // No photo: the release did not fire before the camera went away.
                phase = .ready
            }
        }
    }

    private mutating func finish(_ outcome: Outcome) {
        outcomes[position] = outcome
        busyAnswers = 0
        phase = .ready
        position += 1
    }

    // MARK: - Resuming and saying

    /// For `--resume`: back to the first frame not captured; failed frames are fired again.
    public mutating func resume() {
        stopRequested = false
        stopReason = nil
        phase = .ready
        busyAnswers = 0
        connected = false
        position = plan.frames.indices.first { !isCaptured($0) } ?? plan.frames.count
    }

    /// `complete: 15 of 15 exposures`, or `stopped at set 2, frame 3: 8 of 15 captured`.
    public var summary: String {
        let total = plan.frames.count
        if isComplete { return "complete: \(total) of \(total) exposures" }
        let failed = outcomes.values.filter { if case .failed = $0 { true } else { false } }.count
        let failedText = failed > 0 ? ", \(failed) failed" : ""
        guard let frame = current else { return "done: \(captured) of \(total) captured\(failedText)" }
        let why = stopReason.map { " (\($0))" } ?? ""
        return "stopped at set \(frame.set), frame \(frame.frame): \(captured) of \(total) captured\(failedText)\(why)"
    }
}
