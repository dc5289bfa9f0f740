import Foundation
import Intake
import RelayCore
import RunEvents
import Spool
import Uploader

/// One delivery worker: a thread that owns one connection to one destination, takes the photos
/// the spool has due there, delivers them, records each attempt and settles it by the
/// destination's answer (delivered, retry with backoff, refused for good). Every destination of
/// a run, whatever its kind, is served by workers of this one kind; what differs between them
/// (renditions, uploads while a photo downloads, priority) is the spool's and the
/// destination's, not a code path of its own.
///
/// `@unchecked Sendable`: `probing` and the non-Sendable `destination` are used only by `run()` on the worker's own thread; the rest is `let`.
final class DeliveryWorker: Runnable, @unchecked Sendable {
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
        /// Writes the stamp template into each photo, where the config takes it.
        var stamper: PhotoStamper? = nil
    }

    private let context: Context
    private let destination: any Destination
    /// The destination's config id, by which the spool keeps its deliveries.
    private let id: String
    /// Whether the current attempt is the gate's probe of an unreachable destination.
    private var probing = false

    init(context: Context) throws(DestinationError) {
        self.context = context
        id = context.config.id.uuidString
        destination = try Destinations.make(
            context.config, environment: context.environment, policy: context.policy,
            cancellation: context.cancellation)
    }

    /// Runs until the spool is closed and hands out no more work. A worker of a destination
    /// that takes growing files, with nothing spooled to send, takes a photo that is still
    /// downloading (cut-through).
    func run() {
        let spool = context.spool
        while true {
            probing = context.gate.awaitTurn()
            // An HTTP destination learns whether it may send a body without a length on the way.
            let growing: GrowingAcceptance =
                !destination.acceptsGrowingFiles ? .none : destination.acceptsGrowingFilesOfUnknownSize ? .any : .sized
            guard let work = spool.claimWork(for: id, growing: growing) else { return }
            switch work {
            case .spooled(let entry):
                let attempt = send(entry, filePath: spool.uploadURL(for: entry).path, growing: nil)
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
        /// The stamp template version written into it, nil when it went unstamped.
        let stampVersion: Int?
        /// The editor's caption written into it, if any.
        var caption: PhotoCaption? = nil
        /// What was sent in place of the file's header (the stamp's).
        var prefix: BodyPrefix? = nil
    }

    /// One attempt for `entry`: from the file at `filePath`, or from `growing` while it downloads.
    private func send(_ entry: SpoolEntry, filePath: String, growing: (any GrowingFile)?) -> Attempt {
        let c = context
        let label = c.config.label
        c.bus.publish(.upload(.started(entry.photoRef, destination: label, attempt: entry.attempts, duringDownload: growing != nil)))
        let started = Date()
        var item = Self.item(entry, filePath: filePath, session: c.session?.name)
        var stamped: PhotoStamper.Stamped?
        if c.config.stamp != false, let stamper = c.stamper {
            let cancellation = c.cancellation
            let original = c.spool.photoURL(for: entry).path
            switch stamper.stamp(entry, filePath: filePath, growing: growing, original: original, stopping: { cancellation.isCancelled }) {
            case .stamped(let made): stamped = made
            case .asItIs: break
            case .notYet:
                // Given up as a download that did not go on: sent, stamped, from the spool.
                let failure = UploadTransportError(
                    category: .sourceIncomplete, message: "its header did not arrive in time to be stamped")
                let report = DeliveryReport(.failure(failure), decision: .retry(after: 0))
                return Attempt(
                    report: report, duration: 0, summary: "", duringDownload: true, location: "", stampVersion: nil)
            }
        }
        item.prefix = stamped?.prefix
        item.words = stamped?.words
        let photo = entry.photoRef
        let report = destination.deliverAskingFirst(item, growing: growing, attempt: max(0, entry.attempts - 1)) { sent, total in
            c.bus.publish(.upload(.progressed(photo, destination: label, sent: sent, total: total)))
        }
        c.gate.record(report, probe: probing)
        return Attempt(
            report: report, duration: Date().timeIntervalSince(started),
            summary: destination.summary(of: item), duringDownload: growing != nil,
            location: destination.location(of: item), stampVersion: stamped?.version, caption: stamped?.editor, prefix: stamped?.prefix)
    }

    /// The photo as a destination sees it. `{camera}` is the camera's serial, the FTP account a
    /// camera logs in with (one folder per body), or the hot folder's name.
    static func item(_ entry: SpoolEntry, filePath: String, session: String?) -> DeliveryItem {
        let serial = entry.source.hasPrefix("camera:") ? String(entry.source.dropFirst("camera:".count)) : ""
        let account = entry.source.hasPrefix("ftp:") ? String(entry.source.dropFirst("ftp:".count)) : ""
        let camera =
            !serial.isEmpty
            ? serial
            : !account.isEmpty
                ? account
                : (entry.source.split(separator: "/").last.map(String.init) ?? entry.source)
        // A run without --session belongs to the day the photo was spooled: stable across restarts.
        let run = session ?? PathTemplate.day(entry.spooledAt)
        var template = PathTemplate.Values(
            name: entry.uploadName, capturedAt: entry.capturedAt, camera: camera, serial: serial,
            sequence: entry.sequence, run: run, bracket: entry.bracket)
        template.photographer = entry.photographer ?? ""
        return DeliveryItem(
            filePath: filePath, name: entry.uploadName, key: entry.deliveryKey, contentType: ContentType.of(fileName: entry.uploadName),
            template: template)
    }

    /// Uploads a photo while it downloads. Its last byte is sent only once the photo is
    /// committed to the spool, so a 2xx finds it committed and in flight for this worker. Any
    /// other outcome (``CutThroughVerdict``) is settled by the usual rules if the photo was
    /// committed meanwhile, and otherwise leaves it to be sent from the spool once it is.
    private func deliverWhileDownloading(_ photo: GrowingPhoto) {
        let c = context
        let attempt = send(photo.entry, filePath: photo.url.path, growing: photo)
        // Any destination may be the one reading the download: its lines name it.
        let name = "\(photo.entry.uploadName) → \(c.config.label)"
        if attempt.report.decision == .delivered, case .committed(let entry)? = photo.ended {
            return settle(entry, attempt, decision: .delivered)
        }
        let verdict = CutThroughVerdict(attempt.report, name: name)
        if let message = verdict.notice { notice(photo.entry, message) }
        switch c.spool.settleCutThrough(photo, for: id, retryDelay: verdict.retryDelay) {
        case .committed(let entry):
            settle(entry, attempt, decision: verdict.decision)
        case .abandoned:
            // Not settled in the spool: it is sent from there once downloaded.
            c.bus.publish(
                .upload(
                    .settled(
                        photo.entry.photoRef, destination: c.config.label,
                        outcome: .retrying(
                            attempt: photo.entry.attempts, reason: "sent from the spool once downloaded",
                            retryIn: 0))))
            if verdict.downloadGaveUp, let error = attempt.report.transportError {
                notice(
                    photo.entry,
                    "\(name): the upload started during its download was given up (\(error.message)); "
                        + "it is sent from the spool once downloaded", .info)
                return
            }
            if verdict.lengthRequired {
                notice(
                    photo.entry,
                    "\(name): the destination wants each upload's length (HTTP 411), so photos whose size is known "
                        + "only at their end (FTP uploads, renditions made as photos download) go to it once complete", .info)
                return
            }
            let errorText = AttemptVerdict.problem(attempt.report, verdict.decision)
            record(photo.entry, success: false, error: errorText, attempt: attempt)
            notice(
                photo.entry, "\(name): upload during its download failed (\(errorText ?? "?")); it is sent from the spool once downloaded")
        }
    }

    private func notice(_ entry: SpoolEntry, _ message: String, _ severity: Severity = .warning) {
        context.bus.publish(.upload(.notice(entry.photoRef, message, severity)))
    }

    /// Settles a photo in flight by the delivery rules, then records the attempt. The spool is
    /// settled before the history is written: the fewer steps between a 2xx and "delivered" on
    /// disk, the smaller the window in which a crash could send it again.
    private func settle(_ entry: SpoolEntry, _ attempt: Attempt, decision: DeliveryDecision) {
        let c = context
        let label = c.config.label
        let report = attempt.report
        if decision == .delivered { recordInSession(entry, location: attempt.location, prefix: attempt.prefix) }
        let verdict = AttemptVerdict.settling(
            decision, report: report, attempts: entry.attempts, stopping: c.cancellation.isCancelled, keptIn: nil
        ) {
            Delivery(
                answer: report.statusCode.map { "HTTP \($0)" } ?? "delivered", bytesSent: report.bytesSent, seconds: attempt.duration,
                shutterToGallery: Date().timeIntervalSince(entry.capturedAt), duringDownload: attempt.duringDownload)
        }
        let result = verdict.result
        var outcome = verdict.outcome
        do {
            // A refusal shows where the photo is kept once it was the last destination to settle.
            if try c.spool.settle(entry, for: id, result), case .failed(let reason, _) = result {
                outcome = .failed(reason: reason, keptIn: c.spool.failedDirectory.path)
            }
        } catch {
            switch result {
            case .delivered:
                notice(entry, "\(entry.uploadName) → \(label) was delivered; the spool could not record it (\(error))")
            case .failed:
                notice(entry, "\(entry.uploadName) → \(label) could not be set aside as failed (\(error)); it stays queued")
            case .retry:
                notice(entry, "\(entry.uploadName) → \(label): its state could not be saved (\(error))")
            }
        }
        c.bus.publish(.upload(.settled(entry.photoRef, destination: label, outcome: outcome)))
        record(entry, success: decision == .delivered, error: AttemptVerdict.problem(report, decision), attempt: attempt)
    }

    /// Tells the session's record (if the run has one) where the photo went, before the spool
    /// lets go of the file its size and SHA-256 are read from.
    private func recordInSession(_ entry: SpoolEntry, location: String, prefix: BodyPrefix?) {
        let c = context
        guard let session = c.session else { return }
        do {
            try session.recordDelivered(
                key: entry.idempotencyKey, name: entry.uploadName, capturedAt: entry.capturedAt, bracket: entry.bracket,
                destinationID: id, location: location, filePath: c.spool.uploadURL(for: entry).path, prefix: prefix)
        } catch {
            notice(
                entry,
                "\(entry.uploadName): delivered, but session \(session.name)'s record could not be written (\(error)); "
                    + "its manifest will miss it")
        }
    }

    private func record(_ entry: SpoolEntry, success: Bool, error: String?, attempt: Attempt) {
        var record = AttemptHistory.record(
            entry, success: success, error: error, report: attempt.report, summary: attempt.summary,
            duration: attempt.duration, attempt: entry.attempts)
        record.renditionBytes = entry.rendition?.bytes
        record.note = entry.rendition?.originalReason.map { "sent as the original: \($0)" }
        record.destination = context.config.label
        record.stampVersion = attempt.stampVersion
        record.caption = attempt.caption
        AttemptHistory.append(record, to: context.history, bus: context.bus)
    }
}
