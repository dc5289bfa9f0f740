import Foundation
import RelayCore

/// This desk's id in the claims it writes: made once and kept in RELAY_HOME, so a restarted
/// desk knows its own claims and goes on with them instead of waiting out the claim timeout.
public enum InboxDeskID {
    struct Stored: Codable {
        var desk: String
    }

    public static func file(in home: RelayHome) -> URL { home.root.appendingPathComponent("inbox-desk.json") }

    /// The id kept in `home`, made and saved (atomically) the first time.
    public static func load(home: RelayHome) throws(StateFileError) -> String {
        let file = JSONStateFile<Stored>(url: file(in: home))
        if let stored = try file.load() { return stored.desk }
        let made = Stored(desk: UUID().uuidString.lowercased())
        try file.save(made)
        return made.desk
    }
}
