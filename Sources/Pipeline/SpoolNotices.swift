import RelayCore
import Spool

/// What a run says once at start about photos in the spool that are not simply its own: photos
/// from an older relay that recorded no destinations, and photos that wait for destinations this
/// run does not deliver to (or that no longer exist), with how to deliver or release them.
enum SpoolNotices {
    static func atStart(
        adopted: Int, destinations: [RequestConfig], waiting: [WaitingDestination],
        knownConfigIDs: Set<String>
    ) -> [String] {
        var notices: [String] = []
        if adopted > 0 {
            notices.append(
                "\(adopted) photo\(adopted == 1 ? "" : "s") in the spool came from an older relay that did not record "
                    + "\(adopted == 1 ? "its" : "their") destinations: sending \(adopted == 1 ? "it" : "them") to this run's ("
                    + destinations.map(\.label).joined(separator: ", ") + ")")
        }
        for destination in waiting {
            let count = destination.photos.count
            let names = destination.someNames
            let short = String(destination.id.prefix(8)).lowercased()
            let photos = "\(count) photo\(count == 1 ? "" : "s") (\(names)) wait\(count == 1 ? "s" : "") for '\(destination.label)'"
            if knownConfigIDs.contains(destination.id) {
                notices.append(
                    photos + ", which this run does not deliver to: they stay in the spool. To send them, run relay with "
                        + "--config \(short) among its configs; to give up on them there, relay drop --destination \(short)")
            } else {
                notices.append(
                    photos + " (config \(short)), which no longer exists: they stay in the spool. Add the config again "
                        + "(relay config import), or give up on them there: relay drop --destination \(short)")
            }
        }
        return notices
    }

    /// What a run says when its spool fills up while photos in it wait for destinations this
    /// run does not deliver to: they hold room this run cannot free, so new photos wait at the
    /// camera until the photographer sends or releases them. Nil when no photo waits elsewhere
    /// (the spool empties as this run delivers).
    static func whenFull(waiting: [WaitingDestination]) -> String? {
        guard !waiting.isEmpty else { return nil }
        let held = waiting.map { "\($0.photos.count) for '\($0.label)'" }.joined(separator: ", ")
        let short = waiting.map { String($0.id.prefix(8)).lowercased() }
        return "the spool is full, and photos in it wait for destinations this run does not deliver to (\(held)): "
            + "new photos wait on the camera until there is room. To send them, run relay with "
            + short.map { "--config \($0)" }.joined(separator: " ") + " among its configs; to give up on them there, "
            + short.map { "relay drop --destination \($0)" }.joined(separator: "; ") + "; or raise --spool-max-photos / --spool-max-bytes"
    }
}
