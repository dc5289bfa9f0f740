import Foundation
import PTPIP
import PTPWire

/// A timed capture's and a bracketing run's side of a tether session: the camera's thread fires
/// the due shot, or takes the bracketing run's next step, between its other steps, and matches
/// new photos to shots.
extension TetherSession {
    /// Fires the timed capture's shot if one is due. A lost connection throws (the shot's photo
    /// may still appear after the reconnect). `betweenChunks`: called in the middle of a
    /// download, where a bracketing run takes no step: its next frame waits for the photo being
    /// downloaded and for the events only the session's loop reads.
    func fireDueShot(betweenChunks: Bool = false) throws(PTPIPError) {
        if let capture = context.options.capture, let trigger, capture.isBracketing {
            if betweenChunks { return }
            return try takeExposureStep(capture, trigger)
        }
        guard let capture = context.options.capture, let trigger, let shot = capture.takeDueShot() else { return }
        switch try trigger.fire(session, stop: context.stop) {
        case .accepted(let busyRetries):
            capture.triggerAccepted(shot, busyRetries: busyRetries, exposureSeconds: dialect.exposureSeconds)
        case .failed(let reason): capture.triggerFailed(shot, reason: reason)
        }
    }

    /// Bracketing: sets the next frame's speed, reads it back until the body shows it, or
    /// releases the shutter, as the run asks; the release only once the speed was confirmed.
    private func takeExposureStep(_ capture: any CaptureHook, _ trigger: CaptureTrigger) throws(PTPIPError) {
        guard let step = capture.exposureStep(now: Date(), photosPending: hasWork) else { return }
        switch step {
        case .setSpeed(let speed):
            guard let control = exposureControl else {
                return capture.exposureRefused("relay cannot set the shutter speed of \(session.name)")
            }
            let answer = try dialect.setShutterSpeed(speed, control, session: session)
            if !answer.isOK { capture.exposureRefused("the camera answered \(answer) when set to \(speed)") }
        case .confirmSpeed(let speed):
            if try dialect.shutterSpeed(session) == speed { capture.exposureConfirmed() }
        case .fire:
            capture.released(try trigger.press(session))
        case .idle:
            break
        }
    }

    /// The shot a new photo confirms, if a timed capture waits for one.
    func shotConfirmed(by object: CameraObject, willUpload: Bool) -> Int? {
        context.options.capture?.photoAppeared(
            fileName: object.info.filename,
            wasOnCardAtConnect: onCardAtConnect.contains(object.handle),
            willUpload: willUpload)
    }
}
