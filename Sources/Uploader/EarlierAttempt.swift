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
    public func probe(_ item: DeliveryItem) -> EarlierAttempt { .unknowable }

    /// One attempt, asking the destination first whether an earlier attempt landed when this
    /// is a re-send (`attempt` above 0: the earlier one's answer may have been lost, or relay
    /// stopped before it came; a refused request asks too, which costs one small request).
    /// An upload during the download is always a photo's first attempt, so it never asks.
    public func deliverAskingFirst(
        _ item: DeliveryItem, growing: (any GrowingFile)?, attempt: Int, progress: UploadProgress?
    ) -> DeliveryReport {
        if attempt > 0 && growing == nil {
            switch probe(item) {
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
