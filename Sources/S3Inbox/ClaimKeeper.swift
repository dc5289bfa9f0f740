import Foundation
import RelayCore
import RunEvents
import Uploader

/// Keeps a desk's `taking` claim fresh while the desk takes the photo (the download, its checks,
/// a wait for room in a full spool): every ``ClaimRules/renewalInterval`` a PUT with `If-Match` on
/// the claim's last ETag, so that a slow take is never mistaken for a dead desk's and taken over.
/// It runs on its own thread with its own connection, since the desk's thread is busy in the
/// download; ``end()`` stops it before the desk writes the claim again itself.
final class ClaimKeeper: Sendable {
    /// Where the claim stands.
    enum Standing: Sendable, Equatable {
        /// Still this desk's; the ETag is what the next `If-Match` names.
        case held(ETag)
        /// Another desk wrote it meanwhile (it took the claim over): this desk must commit nothing.
        case lost(said: String)
    }

    private let standing: LockedBox<Standing>
    private let stop = StopFlag()
    private let ended = DispatchSemaphore(value: 0)

    /// Starts renewing `claim` (at `key`, last written as `etag`) through `bucket`, which no other
    /// thread uses meanwhile.
    init(
        _ claim: InboxClaim, etag: ETag, at key: String, bucket: S3Bucket, every interval: TimeInterval, name: String,
        report: SourceReporter
    ) {
        standing = LockedBox(.held(etag))
        // The renewals' connection is this thread's alone until `end()` returns: the desk runs
        // one keeper at a time.
        nonisolated(unsafe) let bucket = bucket
        let thread = Thread { [standing, stop, ended] in
            defer { ended.signal() }
            while !stop.sleep(interval) {
                guard case .held(let last) = standing.current else { return }
                var renewed = claim
                renewed.renewed = Date()
                let put = bucket.request(
                    "PUT", key: key, headers: [WriteCondition.matches(last).header], body: .inline(renewed.encoded()),
                    contentType: "application/json")
                switch ConditionalWriteAnswer.read(bucket.perform(put), condition: .matches(last)) {
                case .ours(let written?): standing.withLockedValue { $0 = .held(written) }
                case .ours(nil): report(.notice("the store renewed the claim of \(name) without an ETag", .warning))
                case .lost(let said):
                    let own = bucket.ownClaim(at: key, desk: claim.desk, object: claim.object)
                    standing.withLockedValue { $0 = own.map { .held($0.etag) } ?? .lost(said: said) }
                case .retryLater(let said), .unsupported(let said), .refused(let said):
                    report(.notice("could not renew the claim of \(name) (\(said)); tried again in \(Int(interval))s", .warning))
                }
            }
        }
        thread.name = "relay-inbox-claim"
        thread.start()
    }

    /// Where the claim stands now.
    var current: Standing { standing.current }

    /// Stops renewing, once a renewal under way has been answered; returns where the claim stands.
    /// Called again, it only answers.
    @discardableResult
    func end() -> Standing {
        if !stop.isStopped {
            stop.stop()
            ended.wait()
        }
        return standing.current
    }
}
