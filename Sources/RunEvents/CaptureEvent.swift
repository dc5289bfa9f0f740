import Foundation

/// A timed capture's shots (`relay capture`). Shots are numbered from 1; `of` is the planned
/// count when the run has one.
public enum CaptureEvent: Sendable, Equatable {
    /// The camera took the trigger (`busyRetries`: DeviceBusy answers waited out first).
    case fired(shot: Int, of: Int?, busyRetries: Int)
    /// The shot's photo came in.
    case captured(shot: Int, of: Int?, fileName: String)
    /// The shot was fired (or tried) but gave no photo.
    case failed(shot: Int, of: Int?, reason: String)
    /// The shot fell due while it could not be fired.
    case missed(shot: Int, of: Int?, reason: String)
    /// The camera is gone; due shots are missed until it is back.
    case paused
    /// The camera is back after `afterSeconds`.
    case resumed(camera: String, afterSeconds: Double)
    /// Where the run stands, when that changes.
    case progress(CaptureProgress)
    /// Anything else (the interval was rounded, the previous run was replaced).
    case notice(String, Severity)
    /// Bracketing: a planned speed the body does not offer, and the nearest it does.
    case substituted(planned: String, used: String)
    /// Bracketing: what became of one frame.
    case frame(BracketFrameReport)
}

/// Bracketing: one frame's set, place and speed, and what became of it.
public struct BracketFrameReport: Sendable, Equatable {
    public enum State: Sendable, Equatable {
        case captured(fileName: String)
        case failed(reason: String)
    }

    public var set: Int
    public var frame: Int
    /// Frames in the whole run.
    public var of: Int
    /// As bodies show it: "1/250", "2\"".
    public var speed: String
    public var state: State

    public init(set: Int, frame: Int, of: Int, speed: String, state: State) {
        self.set = set
        self.frame = frame
        self.of = of
        self.speed = speed
        self.state = state
    }

    /// "set 2, frame 3 (1/60)".
    public var position: String { "set \(set), frame \(frame) (\(speed))" }
}

/// A timed capture's position.
public struct CaptureProgress: Sendable, Equatable {
    /// The last shot that fell due (fired, missed or failed).
    public var shot: Int
    public var planned: Int?
    public var captured: Int
    public var failed: Int
    public var missed: Int
    /// Captured shots whose photo is at every counted destination (``RunDescription/countedDestinations``).
    public var uploaded: Int
    /// When the next shot falls due; nil once every shot has.
    public var nextShotAt: Date?
    /// Shots fired whose photo has not come in yet.
    public var waitingForPhotos: Int
    /// Captured shots whose photo is not uploaded yet.
    public var uploadsPending: Int
    /// The camera is away and due shots are missed.
    public var paused: Bool
    /// Bracketing: the frame under way or next, "set 2, frame 3 (1/60)"; nil otherwise.
    public var frame: String?

    public init(
        shot: Int, planned: Int?, captured: Int, failed: Int, missed: Int, uploaded: Int, nextShotAt: Date?,
        waitingForPhotos: Int, uploadsPending: Int, paused: Bool, frame: String? = nil
    ) {
        self.frame = frame
        self.shot = shot
        self.planned = planned
        self.captured = captured
        self.failed = failed
        self.missed = missed
        self.uploaded = uploaded
        self.nextShotAt = nextShotAt
        self.waitingForPhotos = waitingForPhotos
        self.uploadsPending = uploadsPending
        self.paused = paused
    }

    /// "shot 3 of 10 · next in 4.2s", for the progress line.
    public func text(at now: Date) -> String {
        var text = "shot \(shot)" + (planned.map { " of \($0)" } ?? "")
        if let frame { text = "\(captured) of \(planned ?? 0) exposures · \(frame)" }
        if let next = nextShotAt {
            text += String(format: " · next in %.1fs", max(0, next.timeIntervalSince(now)))
        } else if waitingForPhotos > 0 {
            text += " · waiting for the last photo"
        }
        if paused { text += " · paused: camera away" }
        if uploadsPending > 0 { text += " · \(uploadsPending) upload(s) pending" }
        return text
    }
}
