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
        let onSettled: (@Sendable (SpoolEntry, Bool) -> Void)?
    }

    private let context: Context
    private let client: HTTPUploadClient

    init(context: Context) throws(UploadTransportError) {
        self.context = context
        client = try HTTPUploadClient(cancellation: context.cancellation)
    }

    /// Runs until the spool is closed and hands out no more work.
    func run() {
        while let entry = context.spool.claimNext() {
            deliver(entry)
        }
    }

    private func deliver(_ entry: SpoolEntry) {
        let c = context
        c.statistics.update { $0.uploading += 1 }
        defer { c.statistics.update { $0.uploading -= 1 } }
        let summary = RequestBuilder.summary(for: c.config, entry: entry)
        let started = Date()
        let outcome: Result<UploadResponse, UploadTransportError>
        do {
            let request = try RequestBuilder.request(
                for: c.config, entry: entry, filePath: c.spool.photoURL(for: entry).path, environment: c.environment)
            outcome = client.perform(request)
        } catch {
            outcome = .failure(UploadTransportError(category: .invalidRequest, message: error.description))
        }
        let duration = Date().timeIntervalSince(started)
        let decision = c.policy.decide(outcome, attempt: entry.attempts - 1)
        let response = try? outcome.get()
        let failure: UploadTransportError? = if case .failure(let error) = outcome { error } else { nil }
        let status = response?.statusCode
        let errorText: String? = switch decision {
        case .delivered: nil
        case .permanent(let reason): reason
        case .retry: failure?.description ?? "HTTP \(status ?? 0)" + (response.map { $0.bodySummary.isEmpty ? "" : ": \($0.bodySummary)" } ?? "")
        }
        if let sent = response?.bytesSent { c.statistics.addSent(sent) }

        let name = entry.uploadName
        let size = ByteCountText.format(entry.bytes)
        // The spool is settled before the history is written: the fewer steps between a 2xx and
        // "delivered" on disk, the smaller the window in which a crash could send it again.
        defer {
            record(entry, success: decision == .delivered, status: status, error: errorText, summary: summary,
                   response: response, duration: duration)
        }
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
            c.console.log(String(format: "uploaded %@ (%@) HTTP %d in %.2fs, %.2fs from shutter to gallery",
                                 name, size, status ?? 0, duration, latency))
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

    private func record(
        _ entry: SpoolEntry, success: Bool, status: Int?, error: String?, summary: String,
        response: UploadResponse?, duration: TimeInterval
    ) {
        let record = HistoryRecord(
            captureNumber: entry.timerShot ?? entry.sequence, timestamp: Date(), success: success, statusCode: status,
            errorMessage: error, requestSummary: summary,
            responseSummary: response.map { "HTTP \($0.statusCode)" + ($0.bodySummary.isEmpty ? "" : " \($0.bodySummary)") },
            isTimerCapture: entry.isTimerCapture, fileName: entry.uploadName, bytes: entry.bytes,
            durationSeconds: duration, attempt: entry.attempts)
        do {
            try context.history.append(record)
        } catch {
            context.console.log("history not saved for \(entry.uploadName): \(error)")
        }
    }
}
