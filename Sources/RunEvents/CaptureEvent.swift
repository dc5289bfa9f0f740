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
}

/// A timed capture's position.
public struct CaptureProgress: Sendable, Equatable {
    /// Shots that fell due so far (fired, missed or failed).
    public var due: Int
    public var captured: Int
    public var planned: Int?
    public var nextShotAt: Date?
    public var endsAt: Date?
    /// Captured shots whose photo is not at the gallery yet.
    public var uploadsPending: Int
    public var paused: Bool
    /// The capture ledger's own one-line summary, for the progress line.
    public var text: String

    public init(due: Int, captured: Int, planned: Int?, nextShotAt: Date?, endsAt: Date?, uploadsPending: Int, paused: Bool,
                text: String) {
        self.due = due
        self.captured = captured
        self.planned = planned
        self.nextShotAt = nextShotAt
        self.endsAt = endsAt
        self.uploadsPending = uploadsPending
        self.paused = paused
        self.text = text
    }
}
