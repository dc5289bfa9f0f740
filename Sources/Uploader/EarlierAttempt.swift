import Foundation
import RelayCore

/// What a destination can tell, before a re-send, about an earlier attempt of the same photo
/// whose answer never came (a venue's Wi-Fi lost it, or relay was killed waiting): whether the
/// photo landed. Asking first is what keeps a second copy out of galleries that ignore the
/// `Idempotency-Key` (a WordPress media library, Immich, a bucket, a folder).
public enum EarlierAttempt: Sendable, Equatable {
    /// The destination cannot tell (a plain HTTP gallery): the re-send carries the same
    /// `Idempotency-Key`, and the gallery's contract is to drop the duplicate.
    case unknowable
    /// Not there, or not whole: send it.
    case absent
    /// There and whole: delivered, without sending it again. `answer` says what was found, as
    /// the history shows it ("found as attachment 42 by its slug").
    case landed(answer: String)
    /// The question itself failed (no answer, a server error): this report settles the attempt,
    /// so nothing is sent while the destination cannot say.
    case unanswered(DeliveryReport)
}

extension Destination {
    /// By default a destination cannot tell.
    public func probe(_ item: DeliveryItem, attempt: Int) -> EarlierAttempt { .unknowable }

    /// One attempt, asking the destination first whether an earlier attempt landed when this
    /// is a re-send (`attempt` above 0: the earlier one's answer may have been lost, or relay
    /// stopped before it came; a refused request asks too, which costs one small request).
    /// An upload during the download is always a photo's first attempt, so it never asks.
    public func deliverAskingFirst(
        _ item: DeliveryItem, growing: (any GrowingFile)?, attempt: Int, progress: UploadProgress?
    ) -> DeliveryReport {
        if attempt > 0 && growing == nil {
            switch probe(item, attempt: attempt) {
            case .landed(let answer):
                return DeliveryReport(decision: .delivered, evidence: .reachable, answer: "already there: \(answer)")
            case .unanswered(let report):
                return report
            case .absent, .unknowable:
                break
            }
        }
        return deliver(item, growing: growing, attempt: attempt, progress: progress)
    }
}

extension EarlierAttempt {
    /// What an HTTP question's answer says (pure): a 2xx is read by `found`; 404 is absent
    /// (nothing there, or not even its folder); a failure worth retrying (no answer, 5xx, 429)
    /// leaves the question unanswered, reported as a failed send would be. Any other refusal
    /// cannot tell (credentials allowed to write but not to read get a 403): the send then
    /// says what is wrong, if anything.
    public static func asked(
        _ outcome: Result<UploadResponse, UploadTransportError>, attempt: Int, policy: DeliveryPolicy,
        found: (UploadResponse) -> EarlierAttempt
    ) -> EarlierAttempt {
        if case .success(let response) = outcome {
            if response.statusCode == 404 { return .absent }
            if (200...299).contains(response.statusCode) { return found(response) }
        }
        let decision = policy.decide(outcome, attempt: attempt)
        guard case .retry = decision else { return .unknowable }
        return .unanswered(question(DeliveryReport(outcome, decision: decision)))
    }

    /// A failed question's report says it was the question, not a send, that failed.
    static func question(_ report: DeliveryReport) -> DeliveryReport {
        var report = report
        report.problem = "could not ask whether an earlier attempt landed: " + (report.problem ?? "no answer")
        return report
    }

    /// Landed when the final name holds as many bytes as a send would put there (found `how`);
    /// anything else (a cut file, another photo) is absent, and the send replaces it.
    public static func bySize(found: Int64?, sending: Int64, how: String) -> EarlierAttempt {
        guard let found, found == sending else { return .absent }
        return .landed(answer: "found by \(how), \(found) bytes")
    }

    /// The size of what a send of `item` puts there (its stamp included), nil when the file
    /// cannot be read (the send then says so).
    public static func sendingSize(_ item: DeliveryItem) -> Int64? {
        guard let size = (try? FileManager.default.attributesOfItem(atPath: item.filePath)[.size] as? NSNumber)?.int64Value else {
            return nil
        }
        return item.prefix?.bodySize(fileSize: size) ?? size
    }
}
