import Foundation
import Intake
import RelayCore

/// What this desk did with each inbox object, by key and ETag, kept in RELAY_HOME so that a
/// re-listing (every interval, or after a restart) does not fetch a photo again, and so that a
/// photo spooled before its claim could be marked `done` is marked on the next listing.
///
/// Saved whole and atomically at each change: fine for an event's thousands of photos; a
/// season's worth would want a log of lines instead.
final class InboxTakenLog {
    enum State: String, Codable {
        /// In this desk's durable spool; the claim is not yet `done`.
        case spooled
        /// The claim says `done` (by this desk or another): never looked at again.
        case done
        /// Downloaded and refused (cut short, damaged): taken again only as other bytes.
        case refused
        /// Deleted from the inbox (`--inbox-delete`) once every destination had it, or found
        /// replaced by other bytes when it was to be deleted.
        case deleted
    }

    struct Entry: Codable, Equatable {
        var etag: ETag
        var state: State
        /// The claim's own ETag while `spooled`: what marking it `done` names in `If-Match`.
        var claim: ETag?
        /// The photo's id in this desk's spool, when this desk spooled it.
        var spoolID: String?
        /// Every destination of the desk has it (the spool said so): with `--inbox-delete`, it is
        /// deleted from the inbox once its claim is `done`.
        var everywhere: Bool?
    }

    private let file: JSONStateFile<[String: Entry]>
    private(set) var entries: [String: Entry]

    init(home: RelayHome, inbox: String) throws(StateFileError) {
        file = JSONStateFile(url: SeenLog.url(in: home, source: "s3-inbox:" + inbox, label: "inbox").deletingPathExtension())
        entries = try file.load() ?? [:]
    }

    func entry(_ key: String) -> Entry? { entries[key] }

    /// Records `state` for the key's bytes `etag`; what was known of the same bytes (the spool
    /// id, whether every destination has them) is kept.
    func record(_ key: String, etag: ETag, _ state: State, claim: ETag? = nil, spoolID: String? = nil) throws(StateFileError) {
        let same = entries[key].flatMap { $0.etag == etag ? $0 : nil }
        entries[key] = Entry(
            etag: etag, state: state, claim: claim, spoolID: spoolID ?? same?.spoolID, everywhere: same?.everywhere)
        try file.save(entries)
    }

    /// Marks the photos this desk spooled as `ids` as being at every destination; returns how
    /// many it knew.
    @discardableResult
    func markEverywhere(_ ids: Set<String>) throws(StateFileError) -> Int {
        let keys = entries.filter { $0.value.spoolID.map(ids.contains) ?? false }.keys
        for key in keys { entries[key]?.everywhere = true }
        if !keys.isEmpty { try file.save(entries) }
        return keys.count
    }
}
