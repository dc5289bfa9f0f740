import Foundation

/// The first time relay meets a camera it takes only what is shot from then on: the files on the
/// card at that moment are recorded in the seen-log as not to be taken, once all of them have
/// been looked at (`--include-existing` turns this off).
///
/// A photo the camera announces after the start-up was shot in this session, so it is new even
/// when the first listing already held it (a shot right after connecting). The first listing is
/// kept (`CameraRegistry.KnownCamera.firstListing`) until the rule is done, so that a later
/// connection, after a drop or a killed relay, takes what was shot meanwhile.
struct FirstConnectionRule {
    /// Handles on the card before the first connection; nil when the rule does not apply.
    private(set) var existing: Set<UInt32>?
    /// Seen-log lines of the existing files looked at so far.
    private var lines: [UInt32: (key: String, file: String)] = [:]
    /// Whether the rule still has to record what was on the card.
    private(set) var isPending: Bool

    init(firstConnection: Bool) {
        isPending = firstConnection
    }

    /// A listing of the card: on a first connection (without `includeExisting`) its handles
    /// exist, or of them those in the `remembered` first listing of an earlier connection.
    mutating func listed(_ handles: [UInt32], includeExisting: Bool, remembered: [String]?) {
        guard isPending && !includeExisting else { return }
        let listed = Set(handles)
        existing = remembered.map { listed.intersection($0.compactMap { UInt32($0, radix: 16) }) } ?? listed
    }

    /// The handles to keep as the first listing while the rule is pending.
    var toRemember: [String]? {
        guard isPending, let existing else { return nil }
        return existing.sorted().map { String($0, radix: 16) }
    }

    func isExisting(_ handle: UInt32) -> Bool { existing?.contains(handle) ?? false }

    /// The camera announced `handle` after the start-up: it was shot now. Returns whether an
    /// earlier decision that it existed must be dropped.
    mutating func announced(_ handle: UInt32) -> Bool {
        guard existing?.remove(handle) != nil else { return false }
        return lines.removeValue(forKey: handle) != nil
    }

    mutating func noteExisting(_ handle: UInt32, key: String, file: String) {
        lines[handle] = (key, file)
    }

    /// The seen-log lines to record, in a stable order.
    var linesToRecord: [(key: String, file: String)] { lines.sorted { $0.key < $1.key }.map(\.value) }

    /// The lines are recorded: the rule is done. Returns how many files stay on the card.
    mutating func finished() -> Int {
        isPending = false
        defer { lines.removeAll() }
        return lines.count
    }
}
