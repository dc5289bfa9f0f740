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
    }

    struct Entry: Codable, Equatable {
        var etag: ETag
        var state: State
        /// The claim's own ETag while `spooled`: what marking it `done` names in `If-Match`.
        var claim: ETag?
    }

    private let file: JSONStateFile<[String: Entry]>
    private(set) var entries: [String: Entry]

    init(home: RelayHome, inbox: String) throws(StateFileError) {
        file = JSONStateFile(url: SeenLog.url(in: home, source: "s3-inbox:" + inbox, label: "inbox").deletingPathExtension())
        entries = try file.load() ?? [:]
    }

    func entry(_ key: String) -> Entry? { entries[key] }

    func record(_ key: String, etag: ETag, _ state: State, claim: ETag?) throws(StateFileError) {
        entries[key] = Entry(etag: etag, state: state, claim: claim)
        try file.save(entries)
    }
}
