import Foundation
import RunEvents
import Spool
import Uploader

/// How a delivery worker settles one attempt, as plain values: what the spool records, what the
/// run is told, what the user reads. ``DeliveryWorker`` does the sending and the I/O around it.
struct AttemptVerdict: Equatable {
    /// What the spool records for the destination.
    var result: DestinationResult
    /// What the run's observers are told.
    var outcome: UploadOutcome

    /// The verdict on an attempt the destination decided. `stopping`: relay is stopping, so a
    /// retry is not put off (the next run sends it at once) and is shown as interrupted.
    /// `keptIn`: where the photo waits when refused (nil when other destinations decide that).
    static func settling(
        _ decision: DeliveryDecision, report: DeliveryReport, attempts: Int, stopping: Bool, keptIn: String?, delivered: () -> Delivery
    ) -> AttemptVerdict {
        let problem = problem(report, decision)
        switch decision {
        case .delivered:
            return AttemptVerdict(result: .delivered, outcome: .delivered(delivered()))
        case .retry(let delay):
            return AttemptVerdict(
                result: .retry(after: stopping ? 0 : delay, error: problem, statusCode: report.statusCode),
                outcome: stopping ? .interrupted : .retrying(attempt: attempts, reason: problem ?? "?", retryIn: delay))
        case .permanent(let reason):
            return AttemptVerdict(
                result: .failed(error: reason, statusCode: report.statusCode), outcome: .failed(reason: reason, keptIn: keptIn))
        }
    }

    /// The error text an attempt is recorded with, under the decision it was settled by (which
    /// for an upload during a download may differ from the destination's).
    static func problem(_ report: DeliveryReport, _ decision: DeliveryDecision) -> String? {
        switch decision {
        case .delivered: nil
        case .permanent(let reason): reason
        case .retry: report.problem ?? report.answer
        }
    }
}

/// What becomes of an upload sent while its photo downloaded (cut-through) that did not end
/// delivered with the photo committed. Its last byte goes only after the commit, so a 2xx
/// without a commit means the destination answered early: the photo is sent again, whole. A
/// failure on relay's side (not an answer from the destination) is never final, since the
/// spool's copy is sent next.
struct CutThroughVerdict: Equatable {
    /// The decision it is settled by if the photo was committed meanwhile.
    var decision: DeliveryDecision
    /// How long the spool's copy waits before it is sent.
    var retryDelay: TimeInterval
    /// What the user is told at once (a warning), if anything.
    var notice: String?
    /// The download was given up under the upload: nothing went wrong with the destination, so
    /// no failed attempt is recorded.
    var downloadGaveUp: Bool
    /// The destination wants a body's length up front (HTTP 411) and the photo's size was not
    /// known yet: not a failure, the photo goes once complete.
    var lengthRequired = false

    init(decision: DeliveryDecision, retryDelay: TimeInterval, notice: String?, downloadGaveUp: Bool) {
        self.decision = decision
        self.retryDelay = retryDelay
        self.notice = notice
        self.downloadGaveUp = downloadGaveUp
    }

    /// The verdict on the attempt `report`; `name` says the photo and where it went ("IMG_1.JPG → web").
    init(_ report: DeliveryReport, name: String) {
        decision = report.decision
        notice = nil
        if let error = report.transportError, case .permanent = decision {
            decision = .retry(after: 0)
            notice = "\(name): the upload during its download failed (\(error)); it is sent from the spool"
        } else if decision == .delivered {
            decision = .retry(after: 0)
            notice = "\(name): the destination answered before the whole photo was sent; it is sent again from the spool"
        }
        downloadGaveUp = report.transportError?.category == .sourceIncomplete
        lengthRequired = report.statusCode == 411 && decision == .retry(after: 0)
        retryDelay = if case .retry(let after) = decision, !downloadGaveUp { after } else { 0 }
    }
}
