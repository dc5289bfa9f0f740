import Foundation
import RelayCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the inbox answered for each photo it committed, by the request's key (the sender's
/// `Idempotency-Key`, or the photo's content when it sent none), so that a sender that lost the
/// answer and sends again gets the same answer and no second photo, across restarts.
///
/// An append-only JSON Lines file (`RELAY_HOME/http/receipts.jsonl`), one line per photo, fsynced
/// before the photo may be delivered (its name synced into its folder when it is made). A last
/// line cut short by a crash was never committed and is cut off; any other unreadable line makes
/// the file an error, left untouched.
public final class InboxReceipts: Sendable {
    /// The answer given for one committed photo (the 201's body, and the 200's of every repeat).
    public struct Receipt: Codable, Sendable, Equatable {
        public var id: String
        public var name: String
        public var bytes: Int64
        public var sha256: String?
        public var photographer: String

        public init(id: String, name: String, bytes: Int64, sha256: String?, photographer: String) {
            self.id = id
            self.name = name
            self.bytes = bytes
            self.sha256 = sha256
            self.photographer = photographer
        }
    }

    private struct Line: Codable {
        var key: String
        var receipt: Receipt
    }

    public let url: URL
    /// The receipts by key; its lock also serializes appends to `fd`.
    private let receipts: LockedBox<[String: Receipt]>
    private let fd: Int32

    public init(url: URL) throws(StateFileError) {
        self.url = url
        try StateDirectory.create(url.deletingLastPathComponent())
        receipts = LockedBox(try Self.load(url))
        do {
            fd = try Durable.openCreating(url.path, flags: O_WRONLY | O_APPEND | O_CREAT)
        } catch {
            throw .writeFailed(path: url.path, reason: error.description)
        }
    }

    deinit { close(fd) }

    /// The receipt kept under `key`, if a photo was committed under it.
    public func receipt(for key: String) -> Receipt? {
        receipts.withLockedValue { $0[key] }
    }

    /// Keeps `receipt` under each of `keys` durably before returning (keys already kept are
    /// left as they are).
    public func record(_ receipt: Receipt, keys: [String]) throws(StateFileError) {
        try receipts.withLockedValue { receipts throws(StateFileError) in
            let new = keys.filter { receipts[$0] == nil }
            guard !new.isEmpty else { return }
            var data = Data()
            do {
                for key in new {
                    data.append(try JSONEncoder().encode(Line(key: key, receipt: receipt)))
                    data.append(0x0A)
                }
            } catch {
                throw .writeFailed(path: url.path, reason: "cannot encode: \(error)")
            }
            do {
                try Durable.appendLines(data, to: fd)
            } catch {
                throw .writeFailed(path: url.path, reason: "\(error)")
            }
            for key in new { receipts[key] = receipt }
        }
    }

    private static func load(_ url: URL) throws(StateFileError) -> [String: Receipt] {
        guard FileManager.default.fileExists(atPath: url.path) else { return [:] }
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw .unreadable(path: url.path, reason: "\(error)") }
        var receipts: [String: Receipt] = [:]
        let lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)
        for (index, line) in lines.enumerated() where !line.isEmpty {
            do {
                let parsed = try JSONDecoder().decode(Line.self, from: Data(line))
                receipts[parsed.key] = parsed.receipt
            } catch {
                if index == lines.count - 1 { continue }
                throw .corrupt(path: url.path, reason: "line \(index + 1) is not an inbox receipt")
            }
        }
        let clean = (data.lastIndex(of: 0x0A).map { $0 - data.startIndex + 1 }) ?? 0
        if clean < data.count {
            // A torn last line was never committed: cut it, so the next append starts cleanly.
            guard truncate(url.path, off_t(clean)) == 0 else {
                throw .writeFailed(path: url.path, reason: Errno.current("truncate").description)
            }
        }
        return receipts
    }
}
