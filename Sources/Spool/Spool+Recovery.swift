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
        apply(.foundFailed(failed.entries))
        let found = Self.readEntries(in: directory)
        let unreadable = Self.readSidecars(in: directory).unreadable
        problems = failed.problems
        let stored =
            Int(
                (try? String(contentsOf: sequenceFile, encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
        let highest = (found.entries + failed.entries).reduce(stored) { max($0, $1.sequence) }
        apply(.numbering(persisted: stored, highestFound: highest))
        // A sidecar the ledger drops may be the last record of the highest number: `.sequence`
        // takes it first (if it cannot, the sidecars stay for the next start).
        if highest > stored { persistSequence(atLeast: highest) }
        for entry in found.entries {
            let files = FoundFiles(
                photo: FileManager.default.fileExists(atPath: photoURL(entry.id).path), renditions: renditionFiles(entry))
            if apply(.found(entry, files)).answer == .adopted { adoptedAtStart += 1 }
        }
        // Set aside after the photos found, so that the numbers they take leave `.sequence` holding
        // every number while the found sidecars are dropped.
        for (sidecar, error) in unreadable {
            problems.append(setAside(sidecar, error))
        }
        // Every destination settled before a crash: finished now.
        if let failure = apply(.started(renditionFiles: renditionFilesFound())).failure { throw failure }
    }

    /// Every rendition file in the spool, as specs by photo id (an older relay's
    /// `<id>.rendition.jpg` has the spec "").
    private func renditionFilesFound() -> [String: Set<String>] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        var found: [String: Set<String>] = [:]
        for name in names where name.hasSuffix(Self.renditionSuffix) {
            let stem = name.dropLast(Self.renditionSuffix.count)
            let (id, spec) =
                stem.firstIndex(of: ".").map { (String(stem[..<$0]), String(stem[stem.index(after: $0)...])) } ?? (String(stem), "")
            found[id, default: []].insert(spec)
        }
        return found
    }

    static func readEntries(in folder: URL) -> (entries: [SpoolEntry], problems: [String]) {
        let read = readSidecars(in: folder)
        return (read.entries, read.unreadable.map(\.error.description))
    }

    /// The sidecars of `folder`, in arrival order, and those that could not be read.
    static func readSidecars(in folder: URL) -> (entries: [SpoolEntry], unreadable: [(url: URL, error: StateFileError)]) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return ([], []) }
        var entries: [SpoolEntry] = []
        var unreadable: [(url: URL, error: StateFileError)] = []
        for name in names.sorted() where name.hasSuffix(".json") && !name.hasPrefix(".") {
            let url = folder.appendingPathComponent(name)
            do {
                if let entry = try JSONStateFile<SpoolEntry>(url: url).load() { entries.append(entry) }
            } catch {
                unreadable.append((url, error))
            }
        }
        return (entries.sorted { $0.sequence < $1.sequence }, unreadable)
    }

    /// A sidecar that cannot be read is moved aside (`ID.json.corrupt`, as it was), and its photo
    /// to failed/ with a sidecar of its own: nothing is lost, nothing is sent without the user
    /// (the gallery may have it already), and `relay retry ID` sends it. Returns what to report.
    func setAside(_ sidecar: URL, _ error: StateFileError) -> String {
        let id = String(sidecar.lastPathComponent.dropLast(".json".count))
        let aside = sidecar.appendingPathExtension("corrupt")
        guard !FileManager.default.fileExists(atPath: aside.path), rename(sidecar.path, aside.path) == 0 else {
            return "\(error.description); left as it is (it could not be moved aside)"
        }
        let photo = photoURL(id)
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: photo.path) else {
            return "\(error.description); moved aside to \(aside.lastPathComponent) (it had no photo beside it)"
        }
        let sequence = ask { $0.takeSequence() }
        var entry = SpoolEntry(
            id: id, sequence: sequence, source: "spool", cameraFileName: "\(id).jpg", uploadName: "\(id).jpg",
            bytes: (attributes[.size] as? NSNumber)?.int64Value ?? 0, capturedAt: attributes[.modificationDate] as? Date ?? Date(),
            spooledAt: Date(), idempotencyKey: id)
        entry.state = .failed
        entry.lastError =
            "its sidecar could not be read (moved aside to \(aside.lastPathComponent)): look at the photo, then "
            + "relay retry \(id.prefix(8)) sends it"
        do {
            try JSONStateFile<SpoolEntry>(url: failedDirectory.appendingPathComponent("\(id).json")).save(entry)
            guard rename(photo.path, failedDirectory.appendingPathComponent("\(id).jpg").path) == 0 else { throw Errno.current("rename") }
            try Durable.syncFolder(failedDirectory.path)
            try Durable.syncFolder(directory.path)
        } catch {
            return "\(error); its sidecar was moved aside to \(aside.lastPathComponent), its photo stays as \(photo.lastPathComponent)"
        }
        apply(.setAside(id: id))
        return "\(error.description); moved aside to \(aside.lastPathComponent), and its photo to failed/ (relay retry "
            + "\(id.prefix(8)) sends it)"
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
