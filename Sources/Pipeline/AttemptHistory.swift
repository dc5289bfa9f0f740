import Foundation
import RelayCore
import RunEvents
import Spool
import Uploader

/// A worker thread of a run (`run()` returns once the spool is closed).
protocol Runnable: AnyObject, Sendable {
    func run()
}

/// One delivery attempt as `relay history` keeps it, for the workers of every destination.
enum AttemptHistory {
    static func record(
        _ entry: SpoolEntry, success: Bool, error: String?, report: DeliveryReport, summary: String, duration: TimeInterval,
        attempt: Int
    ) -> HistoryRecord {
        var record = HistoryRecord(
            captureNumber: entry.timerShot ?? entry.sequence, timestamp: Date(), success: success, statusCode: report.statusCode,
            errorMessage: error, requestSummary: summary, responseSummary: report.answer, isTimerCapture: entry.isTimerCapture,
            fileName: entry.uploadName, bytes: entry.bytes, durationSeconds: duration, attempt: attempt)
        record.bracket = entry.bracket
        record.photographer = entry.photographer
        return record
    }

    static func append(_ record: HistoryRecord, to history: HistoryStore, bus: RunEventBus) {
        do {
            try history.append(record)
        } catch {
            bus.publish(.run(.notice("history not saved for \(record.fileName): \(error)", .warning)))
        }
    }
}
