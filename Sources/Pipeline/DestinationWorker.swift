import Foundation
import RelayCore
import Spool
import Uploader

/// A worker for one of a run's destinations other than the primary: it takes each committed
/// photo the spool has due for its destination, sends the original, records the attempt, and
/// tells the spool how it ended. It never touches the primary's queue, so a failing server here
/// does not hold up the gallery.
final class DestinationWorker: Runnable, @unchecked Sendable {
    /// The same as the primary's workers get (`onSettled` is the primary's alone and not called here).
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
            let started = Date()
            let report = destination.deliver(item, growing: nil, attempt: max(0, attempts - 1))
            let duration = Date().timeIntervalSince(started)
            c.gate.record(report, probe: probing)
            c.statistics.addSent(report.bytesSent)
            if report.decision == .delivered {
                UploadWorker.recordInSession(c, entry, destinationID: id, location: destination.location(of: item), filePath: item.filePath)
            }
            settle(entry, report, duration: duration, summary: destination.summary(of: item))
        }
    }

    private func settle(_ entry: SpoolEntry, _ report: DeliveryReport, duration: TimeInterval, summary: String) {
        let c = context
        let label = c.config.label
        let name = entry.uploadName
        let result: DestinationResult
        var problem: String?
        switch report.decision {
        case .delivered:
            result = .delivered
            c.console.log(String(format: "%@ → %@: delivered in %.2fs", name, label, duration))
        case .retry(let delay):
            problem = report.problem ?? report.answer
            let stopping = c.cancellation.isCancelled
            result = .retry(after: stopping ? 0 : delay, error: problem, statusCode: report.statusCode)
            c.console.log(String(format: "%@ → %@: attempt %d failed (%@); retrying in %.1fs", name, label, entry.attempts,
                                 problem ?? "?", delay))
        case .permanent(let reason):
            problem = reason
            result = .failed(error: reason, statusCode: report.statusCode)
            c.console.log("\(name) → \(label) FAILED for good: \(reason). Fix the config, then relay retry --destination \(label)")
        }
        do {
            try c.spool.settlePhoto(entry, for: id, result)
        } catch {
            c.console.log("\(name) → \(label): its state could not be saved (\(error))")
        }
        var record = AttemptHistory.record(entry, success: report.decision == .delivered, error: problem, report: report,
                                           summary: summary, duration: duration, attempt: entry.attempts)
        record.destination = label
        AttemptHistory.append(record, to: c.history, console: c.console)
    }
}
