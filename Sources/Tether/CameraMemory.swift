import Foundation
import Intake
import RelayCore
import RunEvents
import Spool

/// What relay keeps about one camera (by serial number) across the reconnects of a run: its seen
/// log, the downloads a dropped connection cut short, and what was already reported as skipped.
final class CameraMemory {
    let serial: String
    let seen: SeenLog
    /// Downloads cut short, by spool id, resumed when the object shows up again.
    var partials: [String: IncomingPhoto] = [:]
    /// Identity keys of files reported as skipped in this run (each is reported once).
    var skippedKeys: Set<String> = []
    /// Captures the camera holds in its memory until released (Canon RequestObjectTransfer), by
    /// handle: their announcement is not repeated after a dropped connection, so the next session
    /// takes them from here.
    var heldInCamera: [UInt32: ObjectAnnouncement] = [:]
    /// Photos announced by a body whose card cannot be listed (a Nikon Z in "connect to
    /// computer" mode), by handle, until taken or decided against: no listing would find one
    /// again after a dropped connection, so the next session takes them from here.
    var announcedUnlisted: [UInt32: ObjectAnnouncement] = [:]
    /// Photos in the spool whose seen-log line could not be written yet (retried).
    var unrecorded: [(key: String, file: String)] = []
    /// Keys of photos said to be taken before, in this run: each is said once.
    private var declinedKeys: Set<String> = []
    /// Photos on the card at a connection declined since they were last summed up.
    private var declinedAtStart: [AlreadyTaken] = []

    init(serial: String, home: RelayHome) throws(StateFileError) {
        self.serial = serial
        let source = CameraObject.sourceLabel(serial: serial)
        seen = try SeenLog(url: SeenLog.url(in: home, source: source, label: "camera-" + serial))
    }

    /// Whether the photo with `key` was taken (or recorded as existing) before.
    func wasSeen(_ key: String) -> Bool {
        seen.contains(key) || unrecorded.contains { $0.key == key }
    }

    /// Retries seen-log lines that failed before; returns the error of the first that fails again.
    func recordPending() -> StateFileError? {
        guard !unrecorded.isEmpty else { return nil }
        do {
            try seen.record(unrecorded)
            unrecorded.removeAll()
            return nil
        } catch {
            return error
        }
    }

    /// Says that a photo is not taken because the seen log holds `key`: once per run. Those
    /// that were on the card at the connection are also summed up by ``sumUpDeclined(on:report:)``.
    func decline(_ photo: AlreadyTaken, key: String, report: SourceReporter) {
        guard declinedKeys.insert(key).inserted else { return }
        report(.alreadyTaken(photo))
        if photo.atStart { declinedAtStart.append(photo) }
    }

    /// One line for the photos on the card at the connection that were declined, once every
    /// one of them was looked at.
    func sumUpDeclined(on camera: String, report: SourceReporter) {
        guard let line = AlreadyTaken.summary(declinedAtStart, in: "on the card of \(camera)") else { return }
        declinedAtStart.removeAll()
        report(.info(line))
    }

    /// Drops every partial download (relay is stopping; `.incoming/` is cleared on start anyway).
    func discardPartials(in spool: Spool) {
        for incoming in partials.values { spool.discard(incoming) }
        partials.removeAll()
    }
}
