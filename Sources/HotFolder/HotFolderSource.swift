import Foundation
import Intake
import RelayCore
import RunEvents
import Spool

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Takes JPEGs dropped into a folder (camera FTP, tethering software) into the spool.
///
/// A file is taken as soon as its writer closes it or it is renamed into the folder (inotify, on
/// Linux), else once its size and modification time have not changed for `settleSeconds` (a
/// camera FTP upload writes for a while, and a file seen only by polling may still grow). It is
/// taken once only: what was taken is kept in a
/// ``SeenLog``, keyed by path, size and modification time, so files that arrived while relay was
/// stopped are taken on start and none is taken twice. Sub-folders are scanned too.
///
/// Unchecked Sendable because it is built on one thread and then handed, whole, to the one thread
/// that runs ``run(until:)``; that thread is from then on the only user of its mutable state.
public final class HotFolderSource: PhotoSource, @unchecked Sendable {
    public struct Options: Sendable {
        public var folder: URL
        public var settleSeconds: TimeInterval
        public var pollSeconds: TimeInterval

        public init(folder: URL, settleSeconds: TimeInterval = 1.0, pollSeconds: TimeInterval = 0.25) {
            self.folder = folder
            self.settleSeconds = settleSeconds
            self.pollSeconds = pollSeconds
        }
    }

    private struct Candidate {
        var size: Int64
        var modified: Int64
        var stableSince: Date
    }

    public let options: Options
    private let spool: Spool
    private let seen: SeenLog
    private let report: SourceReporter
    private var candidates: [String: Candidate] = [:]
    /// Files the watcher saw closed after writing or renamed in, not yet taken.
    private var completed: Set<String> = []
    private var reportedSkips: Set<String> = []
    /// Taken this run but not yet in the seen-log (its write failed); retried on each scan.
    private var unrecorded: [String: String] = [:]
    /// Keys of files this run took, or said were taken before: the seen log holds both, and
    /// each is said at most once.
    private var known: Set<String> = []
    /// Files whose taking failed in the last scan (a full disk): the next scan tries them again.
    private var failedTakes: Set<String> = []
    /// Whether the folder was scanned once: what that scan declines is summed up in one line.
    private var scannedOnce = false
    public private(set) var skippedCount = 0
    private var sourceLabel: String { "folder:" + options.folder.path }
    public var label: String { "folder \(options.folder.path)" }

    /// `options.folder` is resolved (symlinks too), so one folder reached by two paths is one source.
    public init(options: Options, spool: Spool, home: RelayHome, report: SourceReporter) throws(StateFileError) {
        var options = options
        options.folder = options.folder.resolvingSymlinksInPath().standardizedFileURL
        self.options = options
        self.spool = spool
        self.report = report
        let path = options.folder.path
        seen = try SeenLog(url: SeenLog.url(in: home, source: "folder:" + path, label: "folder-" + options.folder.lastPathComponent))
    }

    /// Checks that the folder exists and is readable, and does not hold relay's own state (whose
    /// spooled JPEGs it would take again and again), so `relay run` can refuse at once.
    public static func validate(_ folder: URL, home: RelayHome) -> String? {
        let folderPath = folder.resolvingSymlinksInPath().standardizedFileURL.path
        let homePath = home.root.resolvingSymlinksInPath().standardizedFileURL.path
        if homePath == folderPath || homePath.hasPrefix(folderPath.hasSuffix("/") ? folderPath : folderPath + "/") {
            return "the state folder \(homePath) is inside the hot folder \(folderPath): set RELAY_HOME to a folder outside it"
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory) else {
            return "folder \(folder.path) does not exist: create it or give another --folder"
        }
        guard isDirectory.boolValue else { return "\(folder.path) is not a folder: give a folder with --folder" }
        guard FileManager.default.isReadableFile(atPath: folder.path) else {
            return "folder \(folder.path) is not readable: check its permissions"
        }
        return nil
    }

    /// Watches (or polls) the folder until `stop` is set.
    public func run(until stop: StopFlag) {
        let watcher = FolderWatcher.make(folder: options.folder)
        if watcher == nil {
            report(
                .info(
                    "folder \(options.folder.path): polled every \(options.pollSeconds)s (no inotify here); "
                        + "a file is taken once it has not changed for \(options.settleSeconds)s"))
        } else {
            report(.info("folder \(options.folder.path): watching for new photos"))
        }
        let remote = watcher == nil || FolderWatcher.missesRemoteWrites(options.folder)
        if let wakePipe = watcher?.wakePipe { stop.onStop { wakePipe.wake() } }
        while !stop.isStopped {
            scanOnce(stop: stop)
            guard let watcher else {
                stop.sleep(options.pollSeconds)
                continue
            }
            // Looked at again when the folder changes or the run stops; on a clock only for what
            // inotify cannot tell: a file still written has settled, a seen-log write is to be
            // retried, or the folder is a network share.
            let due = nextLook(remote: remote)
            while !stop.isStopped {
                let change = watcher.changes(timeout: due.map { max(0, $0.timeIntervalSinceNow) })
                completed.formUnion(change.completed)
                if change.changed || due.map({ Date() >= $0 }) == true { break }
            }
        }
    }

    /// When the folder must be scanned again though inotify said nothing (nil: only on a change).
    private func nextLook(remote: Bool) -> Date? {
        let soonest = Date().addingTimeInterval(options.pollSeconds)
        if remote || !unrecorded.isEmpty || !failedTakes.isEmpty { return soonest }
        guard let settled = candidates.values.map({ $0.stableSince.addingTimeInterval(options.settleSeconds) }).min() else { return nil }
        return max(settled, soonest)
    }

    /// One pass over the folder: takes every file that has settled.
    public func scanOnce(stop: StopFlag) {
        failedTakes.removeAll()
        for (key, file) in unrecorded {
            if (try? seen.record(key, file: file)) != nil { unrecorded[key] = nil }
        }
        var declinedAtStart: [AlreadyTaken] = []
        defer {
            if !scannedOnce, !stop.isStopped {
                scannedOnce = true
                if let line = AlreadyTaken.summary(declinedAtStart, in: "in \(options.folder.path)") { report(.info(line)) }
            }
        }
        let now = Date()
        var present: Set<String> = []
        for file in listFiles() {
            if stop.isStopped { return }
            present.insert(file.relativePath)
            let justCompleted = completed.remove(file.relativePath) != nil
            guard PhotoKind.isJPEG(fileName: file.relativePath) else {
                if reportedSkips.insert(file.relativePath).inserted {
                    skippedCount += 1
                    report(.skipped(fileName: file.relativePath, reason: "not a JPEG"))
                }
                continue
            }
            let key = "\(file.relativePath)|\(file.size)|\(file.modified)"
            if known.contains(key) || unrecorded[key] != nil { continue }
            if seen.contains(key) {
                known.insert(key)
                let declined = AlreadyTaken(
                    fileName: file.relativePath,
                    matched: "\(file.relativePath), \(file.size) bytes, modified \(Timestamp.iso8601(file.modifiedDate))",
                    atStart: !scannedOnce)
                report(.alreadyTaken(declined))
                if declined.atStart { declinedAtStart.append(declined) }
                continue
            }
            if justCompleted {
                take(file, key: key, stop: stop)
            } else if let candidate = candidates[file.relativePath], candidate.size == file.size, candidate.modified == file.modified {
                if now.timeIntervalSince(candidate.stableSince) >= options.settleSeconds {
                    take(file, key: key, stop: stop)
                }
            } else {
                if candidates[file.relativePath] == nil { report(.announced(fileName: file.relativePath, bytes: nil)) }
                candidates[file.relativePath] = Candidate(size: file.size, modified: file.modified, stableSince: now)
            }
        }
        candidates = candidates.filter { present.contains($0.key) }
        completed.formIntersection(present)
    }

    private struct FileStat {
        var relativePath: String
        var url: URL
        var size: Int64
        var modified: Int64
        var modifiedDate: Date
    }

    private func listFiles() -> [FileStat] {
        guard let enumerator = FileManager.default.enumerator(atPath: options.folder.path) else { return [] }
        var files: [FileStat] = []
        while let relative = enumerator.nextObject() as? String {
            let name = (relative as NSString).lastPathComponent
            if name.hasPrefix(".") {
                enumerator.skipDescendants()
                continue
            }
            if PhotoKind.isIgnored(fileName: name) { continue }
            let url = options.folder.appendingPathComponent(relative)
            var info = stat()
            guard stat(url.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            #if canImport(Darwin)
                let seconds = Int64(info.st_mtimespec.tv_sec)
                let nanos = Int64(info.st_mtimespec.tv_nsec)
            #else
                let seconds = Int64(info.st_mtim.tv_sec)
                let nanos = Int64(info.st_mtim.tv_nsec)
            #endif
            files.append(
                FileStat(
                    relativePath: relative, url: url, size: Int64(info.st_size), modified: seconds &* 1_000_000_000 &+ nanos,
                    modifiedDate: Date(timeIntervalSince1970: Double(seconds) + Double(nanos) / 1e9)))
        }
        return files.sorted { ($0.modified, $0.relativePath) < ($1.modified, $1.relativePath) }
    }

    private func take(_ file: FileStat, key: String, stop: StopFlag) {
        if spool.isFull { report(.spoolFull(waiting: nil)) }
        if !spool.waitForRoom(bytes: file.size) { return }
        let identity = PhotoIdentity(
            source: sourceLabel, fileName: (file.relativePath as NSString).lastPathComponent, bytes: file.size,
            capturedAt: file.modifiedDate, uniqueKey: key)
        do {
            let entry = try spool.ingest(
                identity,
                write: { fd in
                    try Self.copy(file.url, expectedBytes: file.size, to: fd)
                },
                committed: { _ in
                    known.insert(key)
                    do {
                        try seen.record(key, file: file.relativePath)
                    } catch {
                        unrecorded[key] = file.relativePath
                        report(.warning("\(file.relativePath) is spooled but could not be remembered as taken: \(error)"))
                    }
                })
            candidates[file.relativePath] = nil
            report.spooled(entry, in: spool)
        } catch {
            report(.warning("\(file.relativePath) stays in the folder for now: \(error)"))
            if case .diskFull = error { stop.sleep(5) }
            candidates[file.relativePath] = nil
            failedTakes.insert(file.relativePath)
        }
    }

    /// Streams the file into the spool's descriptor; fails if its size changed meanwhile.
    static func copy(_ source: URL, expectedBytes: Int64, to fd: Int32) throws {
        let input = open(source.path, O_RDONLY)
        guard input >= 0 else { throw Errno.current("open \(source.lastPathComponent)") }
        defer { close(input) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var total: Int64 = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Errno.current("read \(source.lastPathComponent)")
            }
            if count == 0 { break }
            try AtomicFile.writeAll(fd, Data(buffer[0..<count]))
            total += Int64(count)
        }
        guard total == expectedBytes else { throw HotFolderError.changedWhileCopying(source.lastPathComponent) }
    }
}

/// Hot-folder failures that are retried on a later scan.
public enum HotFolderError: Error, CustomStringConvertible {
    case changedWhileCopying(String)

    public var description: String {
        switch self {
        case .changedWhileCopying(let name): return "\(name) changed while it was copied; it will be taken once it settles"
        }
    }
}

extension HotFolderSource.Options: SourceSetting {
    public var label: String { "folder \(folder.path)" }

    public func problem(home: RelayHome) -> String? { HotFolderSource.validate(folder, home: home) }

    public func makeSource(spool: Spool, home: RelayHome, report: SourceReporter) throws -> any PhotoSource {
        try HotFolderSource(options: self, spool: spool, home: home, report: report)
    }
}
