import Foundation
import RelayCore
import Spool
import Uploader

/// One upload worker: a thread that owns one libcurl handle (so its connection stays alive),
/// takes photos from the spool, sends them, records each attempt and settles the photo by the
/// delivery rules: 2xx removes it, retryable answers put it back with backoff, others fail it.
final class UploadWorker: @unchecked Sendable {
    struct Context: Sendable {
        let spool: Spool
        let config: RequestConfig
        let environment: [String: String]
        let history: HistoryStore
        let statistics: RunStatistics
        let policy: DeliveryPolicy
        let console: RunConsole
        let cancellation: UploadCancellation
        let gate: GalleryGate
        let onSettled: (@Sendable (SpoolEntry, Bool) -> Void)?
    }

    private let context: Context
    private let client: HTTPUploadClient
    /// Whether the current attempt is the gate's probe of an unreachable gallery.
    private var probing = false

    init(context: Context) throws(UploadTransportError) {
        self.context = context
        client = try HTTPUploadClient(cancellation: context.cancellation)
    }

    /// Runs until the spool is closed and hands out no more work. A worker with nothing spooled
    /// to send takes a photo that is still downloading (cut-through).
    func run() {
        // A request without a body (GET, DELETE) has nothing to send early.
        let cutThrough = UploadPlan.sendsBody(method: context.config.verb.rawValue)
        let spool = context.spool
        while true {
            probing = context.gate.awaitTurn { spool.isClosed }
            guard let work = spool.claimNextWork(cutThrough: cutThrough) else { return }
            switch work {
            case .spooled(let entry):
                let attempt = send(entry, filePath: context.spool.uploadURL(for: entry).path, growing: nil)
                settle(entry, attempt, decision: context.policy.decide(attempt.outcome, attempt: entry.attempts - 1))
            case .growing(let photo):
                deliverWhileDownloading(photo)
            }
        }
    }

    /// One attempt's result, before it is settled.
    private struct Attempt {
        let outcome: Result<UploadResponse, UploadTransportError>
        let duration: TimeInterval
        let summary: String
        /// Sent while the photo was still downloading (cut-through).
        let duringDownload: Bool
    }

    /// One attempt for `entry`: from the file at `filePath`, or from `growing` while it downloads.
    private func send(_ entry: SpoolEntry, filePath: String, growing: (any GrowingFile)?) -> Attempt {
        let c = context
        c.statistics.update { $0.uploading += 1 }
        defer { c.statistics.update { $0.uploading -= 1 } }
        let started = Date()
        let outcome: Result<UploadResponse, UploadTransportError>
        do {
            let request = try RequestBuilder.request(for: c.config, entry: entry, filePath: filePath, environment: c.environment)
            outcome = client.perform(request, growing: growing)
        } catch {
            outcome = .failure(UploadTransportError(category: .invalidRequest, message: error.description))
        }
        c.gate.record(outcome, probe: probing)
        return Attempt(outcome: outcome, duration: Date().timeIntervalSince(started),
                       summary: RequestBuilder.summary(for: c.config, entry: entry), duringDownload: growing != nil)
    }

    /// Uploads a photo while it downloads. Its last byte is sent only once the photo is
    /// committed to the spool, so a 2xx finds it committed and in flight for this worker. Any
    /// other outcome is settled by the usual rules if the photo was committed meanwhile, and
    /// otherwise leaves it to be sent from the spool once it is; a failure on relay's side of the
    /// upload (not an answer from the gallery) is never final, since the spool's copy is sent next.
    private func deliverWhileDownloading(_ photo: GrowingPhoto) {
        let c = context
        let attempt = send(photo.entry, filePath: photo.url.path, growing: photo)
        var decision = c.policy.decide(attempt.outcome, attempt: 0)
        let name = photo.entry.uploadName
        if decision == .delivered, case .committed(let entry)? = photo.ended {
            return settle(entry, attempt, decision: decision)
        }
        if case .failure(let error) = attempt.outcome, case .permanent = decision {
            decision = .retry(after: 0)
            c.console.log("\(name): the upload during its download failed (\(error)); it is sent from the spool")
        }
        if decision == .delivered {
            // The gallery answered before the whole photo was sent: it is sent again, whole.
            decision = .retry(after: 0)
            c.console.log("\(name): the gallery answered before the whole photo was sent; it is sent again from the spool")
        }
        let incomplete = if case .failure(let error) = attempt.outcome { error.category == .sourceIncomplete } else { false }
        let delay: TimeInterval = if case .retry(let after) = decision, !incomplete { after } else { 0 }
        switch c.spool.settleCutThrough(photo, retryDelay: delay) {
        case .committed(let entry):
            settle(entry, attempt, decision: decision)
        case .abandoned:
            if incomplete, case .failure(let error) = attempt.outcome {
                c.console.log("\(name): the upload started during its download was given up (\(error.message)); "
                    + "it is sent from the spool once downloaded")
                return
            }
            let (status, errorText) = Self.describe(attempt.outcome, decision)
            record(photo.entry, success: false, status: status, error: errorText, attempt: attempt)
            c.console.log("\(name): upload during its download failed (\(errorText ?? "?")); it is sent from the spool once downloaded")
        }
    }

    /// The status and the error text an attempt is recorded with.
    private static func describe(
        _ outcome: Result<UploadResponse, UploadTransportError>, _ decision: DeliveryDecision
    ) -> (status: Int?, error: String?) {
        let response = try? outcome.get()
        let failure: UploadTransportError? = if case .failure(let error) = outcome { error } else { nil }
        let status = response?.statusCode
        let errorText: String? = switch decision {
        case .delivered: nil
        case .permanent(let reason): reason
        case .retry: failure?.description ?? "HTTP \(status ?? 0)" + (response.map { $0.bodySummary.isEmpty ? "" : ": \($0.bodySummary)" } ?? "")
        }
        return (status, errorText)
    }

    /// Settles a spooled photo in flight by the delivery rules, and records the attempt.
    private func settle(_ entry: SpoolEntry, _ attempt: Attempt, decision: DeliveryDecision) {
        let c = context
        let response = try? attempt.outcome.get()
        let (status, errorText) = Self.describe(attempt.outcome, decision)
        let duration = attempt.duration
        if let sent = response?.bytesSent { c.statistics.addSent(sent) }

        let name = entry.uploadName
        let size = entry.sizeText
        // The spool is settled before the history is written: the fewer steps between a 2xx and
        // "delivered" on disk, the smaller the window in which a crash could send it again.
        defer { record(entry, success: decision == .delivered, status: status, error: errorText, attempt: attempt) }
        switch decision {
        case .delivered:
            do {
                try c.spool.markDelivered(entry)
            } catch {
                c.console.log("\(name) was delivered; marking it so in the spool failed (\(error)), its file was removed anyway")
            }
            let latency = Date().timeIntervalSince(entry.capturedAt)
            c.statistics.update {
                $0.delivered += 1
                $0.lastShutterToGallery = latency
            }
            c.console.log(String(format: "uploaded %@ (%@) HTTP %d in %.2fs, %.2fs from shutter to gallery%@",
                                 name, size, status ?? 0, duration, latency,
                                 attempt.duringDownload ? " (sent while downloading)" : ""))
            c.onSettled?(entry, true)
        case .retry(let delay):
            let stopping = c.cancellation.isCancelled
            c.spool.requeue(entry, after: stopping ? 0 : delay, error: errorText, statusCode: status)
            c.statistics.update { $0.retries += 1 }
            if stopping {
                c.console.log("\(name): upload interrupted by shutdown; it stays in the spool for the next run")
            } else {
                c.console.log(String(format: "%@: attempt %d failed (%@); retrying in %.1fs",
                                     name, entry.attempts, errorText ?? "?", delay))
            }
        case .permanent(let reason):
            do {
                try c.spool.moveToFailed(entry, error: reason, statusCode: status)
                c.console.log("\(name) FAILED for good: \(reason). It is in \(c.spool.failedDirectory.path); fix the config, then relay retry")
            } catch {
                c.spool.requeue(entry, after: 60, error: reason, statusCode: status)
                c.console.log("\(name) failed (\(reason)) and could not be moved to failed/ (\(error)); it stays queued")
            }
            c.statistics.update { $0.failed += 1 }
            c.onSettled?(entry, false)
        }
    }

    private func record(_ entry: SpoolEntry, success: Bool, status: Int?, error: String?, attempt: Attempt) {
        let response = try? attempt.outcome.get()
        let record = HistoryRecord(
            captureNumber: entry.timerShot ?? entry.sequence, timestamp: Date(), success: success, statusCode: status,
            errorMessage: error, requestSummary: attempt.summary,
            responseSummary: response.map { "HTTP \($0.statusCode)" + ($0.bodySummary.isEmpty ? "" : " \($0.bodySummary)") },
            isTimerCapture: entry.isTimerCapture, fileName: entry.uploadName, bytes: entry.bytes,
            durationSeconds: attempt.duration, attempt: entry.attempts, renditionBytes: entry.rendition?.bytes,
            note: entry.rendition?.originalReason.map { "sent as the original: \($0)" })
        do {
            try context.history.append(record)
        } catch {
            context.console.log("history not saved for \(entry.uploadName): \(error)")
        }
    }
}
