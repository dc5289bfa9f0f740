import Foundation
import RelayCore
import RunEvents
import Spool
import Tether
import Uploader

/// A worker for one of a run's destinations other than the primary: it takes each committed
/// photo the spool has due for its destination, sends the original, records the attempt, and
/// tells the spool how it ended. It never touches the primary's queue, so a failing server here
/// does not hold up the gallery.
///
/// `@unchecked Sendable`: the non-Sendable `destination` is used only by `run()` on the worker's own thread; the rest is `let`.
final class DestinationWorker: Runnable, @unchecked Sendable {
    /// The same as the primary's workers get.
    typealias Context = UploadWorker.Context

    private let context: Context
    private let destination: any Destination
    private let id: String

    init(context: Context) throws(DestinationError) {
        self.context = context
        id = context.config.id.uuidString
        destination = try Destinations.make(context.config, environment: context.environment, policy: context.policy,
                                            cancellation: context.cancellation)
    }

    func run() {
        let c = context
        while true {
            let probing = c.gate.awaitTurn { c.spool.isClosed }
            guard var entry = c.spool.claimPhoto(for: id) else { return }
            let attempts = entry.destinations?[id]?.attempts ?? 1
            entry.attempts = attempts
            var item = UploadWorker.item(entry, filePath: c.spool.photoURL(for: entry).path, session: c.session?.name)
            item.key = entry.idempotencyKey
            c.bus.publish(.upload(.started(entry.photoRef, destination: c.config.label, attempt: attempts, duringDownload: false)))
            let started = Date()
            let photo = entry.photoRef
            let report = destination.deliver(item, growing: nil, attempt: max(0, attempts - 1)) { sent, total in
                c.bus.publish(.upload(.progressed(photo, destination: c.config.label, sent: sent, total: total)))
            }
            let duration = Date().timeIntervalSince(started)
            c.gate.record(report, probe: probing)
            if report.decision == .delivered {
                UploadWorker.recordInSession(c, entry, destinationID: id, location: destination.location(of: item), filePath: item.filePath)
            }
            settle(entry, report, duration: duration, summary: destination.summary(of: item))
        }
    }

    private func settle(_ entry: SpoolEntry, _ report: DeliveryReport, duration: TimeInterval, summary: String) {
        let c = context
        let label = c.config.label
        let result: DestinationResult
        let outcome: UploadOutcome
        var problem: String?
        switch report.decision {
        case .delivered:
            result = .delivered
            outcome = .delivered(Delivery(
                answer: report.statusCode.map { "HTTP \($0)" } ?? "delivered", bytesSent: report.bytesSent, seconds: duration,
                shutterToGallery: Date().timeIntervalSince(entry.capturedAt), duringDownload: false))
        case .retry(let delay):
            problem = report.problem ?? report.answer
            let stopping = c.cancellation.isCancelled
            result = .retry(after: stopping ? 0 : delay, error: problem, statusCode: report.statusCode)
            outcome = stopping ? .interrupted : .retrying(attempt: entry.attempts, reason: problem ?? "?", retryIn: delay)
        case .permanent(let reason):
            problem = reason
            result = .failed(error: reason, statusCode: report.statusCode)
            outcome = .failed(reason: reason, keptIn: nil)
        }
        do {
            try c.spool.settlePhoto(entry, for: id, result)
        } catch {
            c.bus.publish(.upload(.notice(entry.photoRef, "\(entry.uploadName) → \(label): its state could not be saved (\(error))",
                                          .warning)))
        }
        c.bus.publish(.upload(.settled(entry.photoRef, destination: label, outcome: outcome)))
        var record = AttemptHistory.record(entry, success: report.decision == .delivered, error: problem, report: report,
                                           summary: summary, duration: duration, attempt: entry.attempts)
        record.destination = label
        AttemptHistory.append(record, to: c.history, bus: c.bus)
    }
}
