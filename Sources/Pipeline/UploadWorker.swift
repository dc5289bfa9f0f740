import Foundation
import RelayCore
import RunEvents
import Spool
import Tether
import Uploader

/// One upload worker: a thread that owns one destination (and so one connection, kept alive),
/// takes photos from the spool, delivers them, records each attempt and settles the photo by
/// the destination's answer: delivered removes it, retry puts it back with backoff, permanent
/// fails it.
///
/// `@unchecked Sendable`: `probing` and the non-Sendable `destination` are used only by `run()` on the worker's own thread.
final class UploadWorker: Runnable, @unchecked Sendable {
    struct Context: Sendable {
        let spool: Spool
        let config: RequestConfig
        let environment: [String: String]
        let history: HistoryStore
        let policy: DeliveryPolicy
        let bus: RunEventBus
        let cancellation: UploadCancellation
        let gate: GalleryGate
        /// The named session's record (`--session`), told of every delivery.
        var session: SessionLedger? = nil
    }

    private let context: Context
    private let destination: any Destination
    /// Whether the current attempt is the gate's probe of an unreachable gallery.
    private var probing = false

    init(context: Context) throws(DestinationError) {
        self.context = context
        destination = try Destinations.make(context.config, environment: context.environment, policy: context.policy,
                                            cancellation: context.cancellation)
    }

    /// Runs until the spool is closed and hands out no more work. A worker with nothing spooled
    /// to send takes a photo that is still downloading (cut-through).
    func run() {
        let cutThrough = destination.acceptsGrowingFiles
        let spool = context.spool
        while true {
            probing = context.gate.awaitTurn { spool.isClosed }
            guard let work = spool.claimNextWork(cutThrough: cutThrough) else { return }
            switch work {
            case .spooled(let entry):
                let attempt = send(entry, filePath: context.spool.uploadURL(for: entry).path, growing: nil)
                settle(entry, attempt, decision: attempt.report.decision)
            case .growing(let photo):
                deliverWhileDownloading(photo)
            }
        }
    }

    /// One attempt's result, before it is settled.
    private struct Attempt {
        let report: DeliveryReport
        let duration: TimeInterval
        let summary: String
        /// Sent while the photo was still downloading (cut-through).
        let duringDownload: Bool
        /// Where the destination put it.
        let location: String
    }

    /// One attempt for `entry`: from the file at `filePath`, or from `growing` while it downloads.
    private func send(_ entry: SpoolEntry, filePath: String, growing: (any GrowingFile)?) -> Attempt {
        let c = context
        c.bus.publish(.upload(.started(entry.photoRef, destination: c.config.label, attempt: entry.attempts,
                                       duringDownload: growing != nil)))
        let started = Date()
        let item = Self.item(entry, filePath: filePath, session: c.session?.name)
        let photo = entry.photoRef
        let label = c.config.label
        let report = destination.deliver(item, growing: growing, attempt: max(0, entry.attempts - 1)) { sent, total in
            c.bus.publish(.upload(.progressed(photo, destination: label, sent: sent, total: total)))
        }
        c.gate.record(report, probe: probing)
        return Attempt(report: report, duration: Date().timeIntervalSince(started),
                       summary: destination.summary(of: item), duringDownload: growing != nil,
                       location: destination.location(of: item))
    }

    /// The photo as a destination sees it.
    static func item(_ entry: SpoolEntry, filePath: String, session: String?) -> DeliveryItem {
        let serial = entry.source.hasPrefix("camera:") ? String(entry.source.dropFirst("camera:".count)) : ""
        let camera = serial.isEmpty ? (entry.source.split(separator: "/").last.map(String.init) ?? entry.source) : serial
        // A run without --session belongs to the day the photo was spooled: stable across restarts.
        let run = session ?? PathTemplate.day(entry.spooledAt)
        return DeliveryItem(
            filePath: filePath, name: entry.uploadName, key: entry.deliveryKey, contentType: ContentType.of(fileName: entry.uploadName),
            template: PathTemplate.Values(name: entry.uploadName, capturedAt: entry.capturedAt, camera: camera, serial: serial,
                                          sequence: entry.sequence, run: run))
    }

    /// Uploads a photo while it downloads. Its last byte is sent only once the photo is
    /// committed to the spool, so a 2xx finds it committed and in flight for this worker. Any
    /// other outcome is settled by the usual rules if the photo was committed meanwhile, and
    /// otherwise leaves it to be sent from the spool once it is; a failure on relay's side of the
    /// upload (not an answer from the gallery) is never final, since the spool's copy is sent next.
    private func deliverWhileDownloading(_ photo: GrowingPhoto) {
        let c = context
        let attempt = send(photo.entry, filePath: photo.url.path, growing: photo)
        var decision = attempt.report.decision
        let name = photo.entry.uploadName
        if decision == .delivered, case .committed(let entry)? = photo.ended {
            return settle(entry, attempt, decision: decision)
        }
        if let error = attempt.report.transportError, case .permanent = decision {
            decision = .retry(after: 0)
            notice(photo.entry, "\(name): the upload during its download failed (\(error)); it is sent from the spool")
        }
        if decision == .delivered {
            // The gallery answered before the whole photo was sent: it is sent again, whole.
            decision = .retry(after: 0)
            notice(photo.entry, "\(name): the gallery answered before the whole photo was sent; it is sent again from the spool")
        }
        let incomplete = attempt.report.transportError?.category == .sourceIncomplete
        let delay: TimeInterval = if case .retry(let after) = decision, !incomplete { after } else { 0 }
        switch c.spool.settleCutThrough(photo, retryDelay: delay) {
        case .committed(let entry):
            settle(entry, attempt, decision: decision)
        case .abandoned:
            // Not settled in the spool: it is sent from there once downloaded.
            c.bus.publish(.upload(.settled(photo.entry.photoRef, destination: c.config.label,
                                           outcome: .retrying(attempt: photo.entry.attempts, reason: "sent from the spool once downloaded",
                                                              retryIn: 0))))
            if incomplete, let error = attempt.report.transportError {
                notice(photo.entry, "\(name): the upload started during its download was given up (\(error.message)); "
                    + "it is sent from the spool once downloaded", .info)
                return
            }
            let errorText = Self.problem(attempt.report, decision)
            record(photo.entry, success: false, error: errorText, attempt: attempt)
            notice(photo.entry, "\(name): upload during its download failed (\(errorText ?? "?")); it is sent from the spool once downloaded")
        }
    }

    private func notice(_ entry: SpoolEntry, _ message: String, _ severity: Severity = .warning) {
        context.bus.publish(.upload(.notice(entry.photoRef, message, severity)))
    }

    /// The error text an attempt is recorded with, under the decision it was settled by (which
    /// for an upload during a download may differ from the destination's).
    private static func problem(_ report: DeliveryReport, _ decision: DeliveryDecision) -> String? {
        switch decision {
        case .delivered: nil
        case .permanent(let reason): reason
        case .retry: report.problem ?? report.answer
        }
    }

    /// Settles a spooled photo in flight by the delivery rules, and records the attempt.
    private func settle(_ entry: SpoolEntry, _ attempt: Attempt, decision: DeliveryDecision) {
        let c = context
        let status = attempt.report.statusCode
        let errorText = Self.problem(attempt.report, decision)
        let outcome: UploadOutcome
        // The spool is settled before the history is written: the fewer steps between a 2xx and
        // "delivered" on disk, the smaller the window in which a crash could send it again.
        switch decision {
        case .delivered:
            Self.recordInSession(c, entry, destinationID: c.config.id.uuidString, location: attempt.location,
                                 filePath: c.spool.uploadURL(for: entry).path)
            do {
                try c.spool.markDelivered(entry)
            } catch {
                notice(entry, "\(entry.uploadName) was delivered; marking it so in the spool failed (\(error)), its file was removed anyway")
            }
            outcome = .delivered(Delivery(
                answer: status.map { "HTTP \($0)" } ?? "delivered", bytesSent: attempt.report.bytesSent, seconds: attempt.duration,
                shutterToGallery: Date().timeIntervalSince(entry.capturedAt), duringDownload: attempt.duringDownload))
        case .retry(let delay):
            let stopping = c.cancellation.isCancelled
            c.spool.requeue(entry, after: stopping ? 0 : delay, error: errorText, statusCode: status)
            outcome = stopping ? .interrupted : .retrying(attempt: entry.attempts, reason: errorText ?? "?", retryIn: delay)
        case .permanent(let reason):
            do {
                try c.spool.moveToFailed(entry, error: reason, statusCode: status)
                outcome = .failed(reason: reason, keptIn: c.spool.failedDirectory.path)
            } catch {
                c.spool.requeue(entry, after: 60, error: reason, statusCode: status)
                notice(entry, "\(entry.uploadName) could not be moved to failed/ (\(error)); it stays queued")
                outcome = .failed(reason: reason, keptIn: nil)
            }
        }
        c.bus.publish(.upload(.settled(entry.photoRef, destination: c.config.label, outcome: outcome)))
        record(entry, success: decision == .delivered, error: errorText, attempt: attempt)
    }

    /// Tells the session's record (if the run has one) where the photo went, before the spool
    /// lets go of the file its size and SHA-256 are read from.
    static func recordInSession(_ c: Context, _ entry: SpoolEntry, destinationID: String, location: String, filePath: String) {
        guard let session = c.session else { return }
        do {
            try session.recordDelivered(key: entry.idempotencyKey, name: entry.uploadName, capturedAt: entry.capturedAt,
                                        destinationID: destinationID, location: location, filePath: filePath)
        } catch {
            c.bus.publish(.upload(.notice(entry.photoRef, "\(entry.uploadName): delivered, but session \(session.name)'s record "
                + "could not be written (\(error)); its manifest will miss it", .warning)))
        }
    }

    private func record(_ entry: SpoolEntry, success: Bool, error: String?, attempt: Attempt) {
        var record = AttemptHistory.record(entry, success: success, error: error, report: attempt.report, summary: attempt.summary,
                                           duration: attempt.duration, attempt: entry.attempts)
        record.renditionBytes = entry.rendition?.bytes
        record.note = entry.rendition?.originalReason.map { "sent as the original: \($0)" }
        if context.spool.destinations != nil { record.destination = context.config.label }
        AttemptHistory.append(record, to: context.history, bus: context.bus)
    }
}
