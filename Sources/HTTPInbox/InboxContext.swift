import Foundation
import Intake
import RelayCore
import RunEvents
import Spool

/// What every request of one inbox shares: its options, the spool, the receipts and the keys
/// requests are claimed under while they run.
struct InboxContext: Sendable {
    let options: HTTPInboxOptions
    let spool: Spool
    let receipts: InboxReceipts
    let report: SourceReporter
    /// Keys of requests being received now: a second request with the same key waits its turn.
    let running = LockedBox<Set<String>>([])
    /// Slows a sender guessing tokens.
    let loginGuard = LoginGuard()

    /// Claims `key` for one request; false while another request holds it.
    func claim(_ key: String) -> Bool {
        running.withLockedValue { $0.insert(key).inserted }
    }

    func release(_ key: String) {
        _ = running.withLockedValue { $0.remove(key) }
    }

    /// The name a photo is spooled under: the sender's, after its login when several send, so
    /// that two photographers' `IMG_0001.JPG` stay two photos at every destination.
    func uploadName(_ name: String, by login: HTTPInboxLogin) -> String {
        options.logins.count > 1 ? "\(login.name)_\(name)" : name
    }

    func requestKey(login: HTTPInboxLogin, idempotencyKey: String) -> String {
        "\(login.name)\u{0}idempotency:\(idempotencyKey)"
    }

    /// One sender's photo by its content: a phone that sends the same photo again without a key
    /// is answered as the first time.
    func contentKey(login: HTTPInboxLogin, sha256: String) -> String {
        "http|\(login.name)|sha256:\(sha256)"
    }

    /// The answer given before under one of `keys`; or, for a photo committed just before relay
    /// died (in the spool, its receipt not kept), the spool's entry, whose receipt is kept now.
    func earlierReceipt(keys: [String], spoolContentKey: String) -> InboxReceipts.Receipt? {
        for key in keys {
            if let receipt = receipts.receipt(for: key) { return receipt }
        }
        guard spool.contains(contentKey: spoolContentKey) else { return nil }
        let held = spool.snapshot()
        guard let entry = (held.queued + held.inFlight).first(where: { $0.contentKey == spoolContentKey }) else { return nil }
        let receipt = InboxReceipts.Receipt(
            id: entry.id, name: entry.uploadName, bytes: entry.bytes, sha256: spoolContentKey.components(separatedBy: "sha256:").last,
            photographer: entry.photographer ?? "")
        try? receipts.record(receipt, keys: keys)
        return receipt
    }
}
