import Foundation
import RelayCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a spool folder holds on disk: finishing what a crash interrupted when a spool opens it,
/// and reading it without taking it over (`relay status` while another relay runs).
extension Spool {
    func recover() throws(SpoolError) {
        if let names = try? FileManager.default.contentsOfDirectory(atPath: incomingDirectory.path) {
            for name in names { unlink(incomingDirectory.appendingPathComponent(name).path) }
        }
        let failed = Self.readEntries(in: failedDirectory)
        failedIDs = Set(failed.entries.map(\.id))
        let found = Self.readEntries(in: directory)
        problems = found.problems + failed.problems
        let stored = Int((try? String(contentsOf: sequenceFile, encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
        persistedSequence = stored
        let highest = (found.entries + failed.entries).reduce(stored) { max($0, $1.sequence) }
        nextSequence = highest == Int.max ? highest : highest + 1
        // A sidecar dropped below may be the last record of the highest number: `.sequence`
        // takes it first (if it cannot, the sidecars stay for the next start).
        let numbersKept = highest <= stored || persistSequence(atLeast: highest)
        for var entry in found.entries {
            let photo = photoURL(entry.id).path
            let hasPhoto = FileManager.default.fileExists(atPath: photo)
            if entry.state == .delivered || !hasPhoto {
                // Delivered, never committed (crash before the rename), or moved to failed/.
                if entry.state == .delivered { unlink(photo) }
                unlink(renditionURL(entry.id).path)
                if numbersKept { unlink(sidecarURL(entry.id).path) }
                continue
            }
            if failedIDs.contains(entry.id) {
                // A move to or from failed/ was cut short: where the photo is decides. It is
                // here, so it stays queued (a permanent answer would fail it again).
                unlink(failedDirectory.appendingPathComponent("\(entry.id).json").path)
                failedIDs.remove(entry.id)
            }
            entry.inFlightSince = nil
            entry.uploaderPID = nil
            if let destinations {
                let resumed = PhotoDestinations.resume(entry.destinations, run: destinations)
                if resumed.adopted { adoptedAtStart += 1 }
                entry.destinations = resumed.map
                progress[entry.id] = resumed.map
                if !resumed.forPrimary {
                    // The primary has it, or it was never taken for the primary: it waits
                    // for the others (this run's, or those of a run to come).
                    lingering[entry.id] = entry
                    continue
                }
            }
            if entry.rendition != nil && entry.rendition?.spec != renditionKey {
                // Made for another config: this run sends what its own config asks for.
                entry.rendition = nil
                unlink(renditionURL(entry.id).path)
            }
            if needsRendition(entry) { awaitingRendition.insert(entry.id) }
            queued.append(entry)
        }
        queued.sort { $0.sequence < $1.sequence }
        removeOrphanRenditions()
        // Every destination settled before a crash: finished now.
        for id in lingering.keys { try finishIfSettled(id) }
    }

    /// Renditions whose photo has gone (a crash between removing the two files).
    private func removeOrphanRenditions() {
        let suffix = ".rendition.jpg"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        let kept = Set(queued.map(\.id))
        for name in names where name.hasSuffix(suffix) && !kept.contains(String(name.dropLast(suffix.count))) {
            unlink(directory.appendingPathComponent(name).path)
        }
    }

    static func readEntries(in folder: URL) -> (entries: [SpoolEntry], problems: [String]) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return ([], []) }
        var entries: [SpoolEntry] = []
        var problems: [String] = []
        for name in names where name.hasSuffix(".json") && !name.hasPrefix(".") {
            do {
                if let entry = try JSONStateFile<SpoolEntry>(url: folder.appendingPathComponent(name)).load() {
                    entries.append(entry)
                }
            } catch {
                problems.append(error.description)
            }
        }
        return (entries.sorted { $0.sequence < $1.sequence }, problems)
    }

    /// What a spool folder holds, read without taking it over (another relay may be running).
    public static func inspect(directory: URL) -> SpoolSnapshot {
        let main = readEntries(in: directory)
        let failed = readEntries(in: directory.appendingPathComponent("failed", isDirectory: true))
        var queued: [SpoolEntry] = []
        var inFlight: [SpoolEntry] = []
        for entry in main.entries where entry.state == .queued {
            if entry.inFlightSince != nil, let pid = entry.uploaderPID, kill(pid, 0) == 0 {
                inFlight.append(entry)
            } else {
                queued.append(entry)
            }
        }
        return SpoolSnapshot(queued: queued, inFlight: inFlight, failed: failed.entries, problems: main.problems + failed.problems)
    }
}
