import Foundation
import RelayCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `relay retry`: photos in failed/ go back into the queue.
extension Spool {
    /// Moves failed photos (all, or those whose id starts with one of `ids`) back into the queue.
    /// A photo that went to several destinations is sent again only to those that refused it
    /// (or only to `destination`, a config id prefix or label, when given).
    public func retryFailed(ids: [String] = [], destination: String? = nil) throws(SpoolError) -> [SpoolEntry] {
        var moved: [SpoolEntry] = []
        for var entry in Self.readEntries(in: failedDirectory).entries
        where ids.isEmpty || ids.contains(where: { entry.id.hasPrefix($0.lowercased()) }) {
            guard FileManager.default.fileExists(atPath: failedDirectory.appendingPathComponent("\(entry.id).jpg").path) else {
                continue
            }
            if let map = entry.destinations {
                guard let requeued = PhotoDestinations.retry(map, matching: destination) else { continue }
                entry.destinations = requeued
            } else if destination != nil {
                continue
            }
            entry.state = .queued
            do {
                try JSONStateFile<SpoolEntry>(url: sidecarURL(entry.id)).save(entry)
                try Durable.rename(failedDirectory.appendingPathComponent("\(entry.id).jpg").path, to: photoURL(entry.id).path)
                try Durable.remove(failedDirectory.appendingPathComponent("\(entry.id).json").path)
            } catch {
                throw Self.describe(error, at: photoURL(entry.id))
            }
            apply(.readmit(entry, renditionFiles: renditionFiles(entry)))
            moved.append(entry)
        }
        return moved
    }
}
