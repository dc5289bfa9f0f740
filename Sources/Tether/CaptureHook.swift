import Foundation
import Intake

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
}

/// The settings of a camera source a timed capture (`relay capture`) can fire.
public protocol CaptureSetting: SourceSetting {
    /// The capture that fires the camera, nil for a run that only takes what is shot.
    var capture: (any CaptureHook)? { get set }
}
