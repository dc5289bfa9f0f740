import Foundation
import Intake
import PTPWire
import RelayCore

/// What a timed capture (`relay capture`) asks of the camera source and learns from it. The
/// camera's thread is the one owner of its connection, so triggers are fired from there: the
/// source asks between its steps whether a shot is due, and reports what the camera did.
public protocol CaptureHook: AnyObject, Sendable {
    /// The camera's session is open. `triggerProblem` says why it cannot be fired remotely (nil
    /// when it can).
    func cameraReady(name: String, triggerProblem: String?)
    /// The camera's session ended while relay goes on (dropped, asleep, switched off).
    func cameraGone()
    /// The number of a shot to fire now, if one is due.
    func takeDueShot() -> Int?
    /// Seconds until the next shot falls due (nil: none is planned), so the source does not
    /// wait longer than that for events.
    func secondsUntilNextShot() -> Double?
    /// The camera took the trigger of `shot`; its photo is expected, after `exposureSeconds` (the
    /// exposure time the camera reports, nil when it reports none).
    func triggerAccepted(_ shot: Int, busyRetries: Int, exposureSeconds: Double?)
    /// The trigger of `shot` did not make the camera shoot.
    func triggerFailed(_ shot: Int, reason: String)
    /// A new photo appeared on the camera: the shot it belongs to, if any. `wasOnCardAtConnect`:
    /// it was there when this session started, so only a shot fired before can have made it.
    /// `willUpload`: relay takes it (not a RAW file left on the card).
    func photoAppeared(fileName: String, wasOnCardAtConnect: Bool, willUpload: Bool) -> Int?

    /// Whether this is a bracketing run (`exposureStep` gives its steps).
    var isBracketing: Bool { get }
    /// Bracketing: the body's exposure control, read once it is ready (nil: relay cannot set its
    /// speed). Returns why the run cannot go on (the dial in A or P), or nil.
    func exposureReady(_ control: ExposureControl?, camera: String) -> String?
    /// Bracketing: what the camera's thread does now; nil for a timed capture. `photosPending`:
    /// the session has announced photos not looked at yet, so an awaited photo may be among them.
    func exposureStep(now: Date, photosPending: Bool) -> ExposureStep?
    /// Bracketing: the body reports the speed just set.
    func exposureConfirmed()
    /// Bracketing: the body refused the speed; the run stops rather than fire at another.
    func exposureRefused(_ reason: String)
    /// Bracketing: what the shutter release answered.
    func released(_ answer: PTPResponseCode)
    /// Bracketing: the set, frame and speed of `shot`, for its photo's templates and history.
    func frameTag(ofShot shot: Int) -> BracketTag?
}

/// What a bracketing run asks of the camera's thread at one moment.
public enum ExposureStep: Equatable, Sendable {
    /// Write this speed.
    case setSpeed(ShutterSpeed)
    /// Read the speed back: report `exposureConfirmed` once the body shows this one.
    case confirmSpeed(ShutterSpeed)
    /// Release the shutter once.
    case fire
    /// Nothing for the camera now (a wait, a pause, or the end).
    case idle
}

extension CaptureHook {
    public var isBracketing: Bool { false }
    public func exposureReady(_ control: ExposureControl?, camera: String) -> String? { nil }
    public func exposureStep(now: Date, photosPending: Bool) -> ExposureStep? { nil }
    public func exposureConfirmed() {}
    public func exposureRefused(_ reason: String) {}
    public func released(_ answer: PTPResponseCode) {}
    public func frameTag(ofShot shot: Int) -> BracketTag? { nil }
}

/// The settings of a camera source a timed capture (`relay capture`) can fire.
public protocol CaptureSetting: SourceSetting {
    /// The capture that fires the camera, nil for a run that only takes what is shot.
    var capture: (any CaptureHook)? { get set }
}
