import Foundation
import RelayCore
import Spool
import Tether

/// Runs a timed capture's ledger between the camera's thread (which fires the shots and sees
/// the photos) and the command (which keeps time while the camera is away and ends the run).
/// Every change is saved to `capture.json` before anyone acts on it.
public final class CaptureController: CaptureHook, @unchecked Sendable {
    /// Seconds a fired shot may take to show its photo, beyond the exposure time the camera
    /// reports (Canon; other bodies report none, and this covers exposures of a few seconds).
    public static let shotTimeout = 10.0

    private let lock = NSLock()
    private var ledger: CaptureLedger
    private let file: JSONStateFile<CaptureLedger>
    private let log: @Sendable (String) -> Void
    private var connected = false
    private var sessionStartedAt: Date?
    private var pausedSince: Date?
    private var saveProblem: String?
    /// Why the camera cannot be fired, once it said so; the run ends.
    public private(set) var refusal: String?

    /// The ledger is saved at its first change (the first shot), so a run refused before it
    /// starts (a bad config) leaves the last run's file as it was.
    public init(ledger: CaptureLedger, file: URL, log: @escaping @Sendable (String) -> Void) {
        self.ledger = ledger
        self.file = JSONStateFile(url: file)
        self.log = log
    }

    /// The saved run at `file`, if there is one.
    public static func load(_ file: URL) throws(StateFileError) -> CaptureLedger? {
        try JSONStateFile<CaptureLedger>(url: file).load()
    }

    public var snapshot: CaptureLedger { lock.withLock { ledger } }

    // MARK: - The camera's side

    public func cameraReady(name: String, triggerProblem: String?) {
        lock.withLock {
            if let triggerProblem {
                refusal = triggerProblem
                return
            }
            connected = true
            sessionStartedAt = Date()
            if !ledger.hasStarted { ledger.start(at: Date()) }
            if let since = pausedSince {
                log(String(format: "capture resumes: %@ is back after %.0fs", name, Date().timeIntervalSince(since)))
                pausedSince = nil
            }
        }
    }

    public func cameraGone() {
        lock.withLock {
            guard connected else { return }
            connected = false
            guard !ledger.isComplete else { return }
            pausedSince = Date()
            log("capture paused: the camera is gone; shots that fall due before it is back are missed")
        }
    }

    public func takeDueShot() -> Int? {
        change { ledger in ledger.takeDue(now: Date(), cameraReady: true, reasonIfAway: "") }
    }

    public func secondsUntilNextShot() -> Double? {
        lock.withLock { ledger.nextDue.map { $0.timeIntervalSinceNow } }
    }

    public func triggerAccepted(_ shot: Int, busyRetries: Int, exposureSeconds: Double?) {
        if let exposureSeconds, exposureSeconds >= 1 { change { ledger in ledger.triggerAccepted(shot, exposureSeconds: exposureSeconds) } }
        let of = lock.withLock { ledger.plannedShots.map { " of \($0)" } ?? "" }
        log("shot \(shot)\(of): fired" + (busyRetries > 0 ? " after \(busyRetries) DeviceBusy answer(s)" : ""))
    }

    public func triggerFailed(_ shot: Int, reason: String) {
        change { ledger in ledger.triggerFailed(shot, reason: reason) }
    }

    public func photoAppeared(fileName: String, wasOnCardAtConnect: Bool, willUpload: Bool) -> Int? {
        let before = wasOnCardAtConnect ? lock.withLock { sessionStartedAt ?? .distantPast } : nil
        return change { ledger in ledger.photoAppeared(fileName: fileName, firedBefore: before, willUpload: willUpload) }
    }

    // MARK: - The command's side

    /// Keeps time while the camera is away (due shots are missed) and fails shots whose photo
    /// did not come in time.
    public func tick() {
        change { ledger in
            let now = Date()
            if !connected { _ = ledger.takeDue(now: now, cameraReady: false, reasonIfAway: "the camera was not connected") }
            _ = ledger.expire(now: now, timeout: Self.shotTimeout)
        }
    }

    /// A photo reached the gallery (`delivered`) or was refused by it for good.
    public func uploadSettled(_ entry: SpoolEntry, delivered: Bool) {
        guard let shot = entry.timerShot else { return }
        change { ledger in ledger.markUpload(shot, delivered: delivered) }
    }

    /// Every shot has fallen due and none waits for its photo.
    public var isComplete: Bool { lock.withLock { ledger.isComplete } }

    /// Captured shots whose photo is not in the gallery yet.
    public var uploadsPending: Int { lock.withLock { ledger.uploadsPending } }

    /// For the progress line.
    public var status: String {
        lock.withLock {
            var text = ledger.progress(now: Date())
            if pausedSince != nil { text += " · paused: camera away" }
            let pending = ledger.uploadsPending
            if pending > 0 { text += " · \(pending) upload(s) pending" }
            return text
        }
    }

    /// Ends the run: marks it ended when it is complete (or `force`), and returns its summary.
    public func finish(stopped: Bool) -> String {
        change { ledger in
            if ledger.isComplete || refusal != nil { ledger.ended = true }
            return ledger.summary(stopped: stopped)
        }
    }

    /// Applies `body` to the ledger, logs the shots whose outcome it settled, and saves.
    private func change<T>(_ body: (inout CaptureLedger) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        let before = ledger
        let result = body(&ledger)
        guard ledger != before else { return result }
        let planned = ledger.plannedShots.map { " of \($0)" } ?? ""
        for shot in ledger.shots where before.shot(shot.number)?.outcome != shot.outcome {
            switch shot.outcome {
            case .triggered: break
            case .captured: log("shot \(shot.number)\(planned): captured \(shot.fileName ?? "")")
            case .failed: log("shot \(shot.number)\(planned) FAILED: \(shot.reason ?? "")")
            case .missed: log("shot \(shot.number)\(planned) missed: \(shot.reason ?? "")")
            }
        }
        do {
            try file.save(ledger)
            saveProblem = nil
        } catch {
            if saveProblem == nil { log("the capture state could not be saved (\(error)); --resume would start from an older state") }
            saveProblem = "\(error)"
        }
        return result
    }
}
