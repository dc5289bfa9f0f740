import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The decisions on held photos, durable before they are acknowledged: a JSON Lines file
/// (`review.jsonl`) that `relay review` and the editor's page append to, each append fsynced
/// under an flock, whether relay runs or not. A running relay reads what was added since it last
/// looked (``read(from:)``); it watches the file, so a decision made anywhere reaches it at once.
///
/// A line cut short by a power cut is skipped (and the next append starts on a new line): the
/// decision it held was never acknowledged.
public struct ReviewJournal: Sendable {
    public let url: URL

    public init(url: URL) {
        self.url = url
    }

    public init(home: RelayHome) {
        self.init(url: home.reviewFile)
    }

    /// Appends `decisions`, synced to disk before it returns; returns where the journal now
    /// ends (a reader at that offset has read them).
    @discardableResult
    public func append(_ decisions: [ReviewDecision]) throws(StateFileError) -> UInt64 {
        guard !decisions.isEmpty else { return 0 }
        var data = Data()
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = .sortedKeys
        for decision in decisions {
            guard let line = try? encoder.encode(decision) else {
                throw .writeFailed(path: url.path, reason: "cannot encode the decision on \(decision.photo)")
            }
            data.append(line)
            data.append(0x0A)
        }
        return try locked { () throws(Errno) in
            let fd = try Durable.openCreating(url.path, flags: O_RDWR | O_APPEND | O_CREAT)
            defer { close(fd) }
            // A partly written line is cut off again, so that no half decision stays.
            return try Durable.appendLines(data, to: fd, lineBreakFirst: true)
        }
    }

    /// The decisions from byte `offset` to the end of the last whole line, and where that end
    /// is (the offset to read from next). A file shorter than `offset` (it was rewritten) is
    /// read from its start. Lines that are not decisions are counted, not thrown.
    public func read(from offset: UInt64 = 0) throws(StateFileError) -> (decisions: [ReviewDecision], end: UInt64, unreadable: Int) {
        guard let handle = FileHandle(forReadingAtPath: url.path) else {
            if FileManager.default.fileExists(atPath: url.path) {
                throw .unreadable(path: url.path, reason: "permission denied")
            }
            return ([], 0, 0)
        }
        defer { try? handle.close() }
        let data: Data
        var start = offset
        do {
            let size = try handle.seekToEnd()
            if size < start { start = 0 }
            try handle.seek(toOffset: start)
            data = try handle.readToEnd() ?? Data()
        } catch {
            throw .unreadable(path: url.path, reason: "\(error)")
        }
        guard let lastNewline = data.lastIndex(of: 0x0A) else { return ([], start, 0) }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        var decisions: [ReviewDecision] = []
        var unreadable = 0
        for line in data[data.startIndex..<lastNewline].split(separator: 0x0A) {
            if let decision = try? decoder.decode(ReviewDecision.self, from: Data(line)) {
                decisions.append(decision)
            } else {
                unreadable += 1
            }
        }
        return (decisions, start + UInt64(lastNewline - data.startIndex + 1), unreadable)
    }

    /// The verdict on every photo the journal decided.
    public func verdicts() throws(StateFileError) -> ReviewVerdicts {
        ReviewVerdicts(try read().decisions)
    }

    /// Rewrites the journal with only the last decision on each of `photos` (those still in the
    /// spool or in failed/, an undo included), so it does not grow without end: read and
    /// replaced under the lock appends take, so that no decision acknowledged meanwhile is lost.
    /// A journal with a line it cannot read is never rewritten.
    public func compact(keeping photos: Set<String>) throws(StateFileError) {
        var failure: StateFileError?
        try locked { () throws(Errno) in
            let all: (decisions: [ReviewDecision], end: UInt64, unreadable: Int)
            do throws(StateFileError) { all = try read() } catch {
                failure = error
                return
            }
            // A journal with lines it cannot read is left as it is (they may be a person's).
            let kept = all.decisions.filter { photos.contains($0.photo) }
            guard kept.count < all.decisions.count, all.unreadable == 0 else { return }
            // The last decision and the last caption on each photo, in the journal's own order.
            let last = Self.lastIndexes(kept)
            var data = Data()
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            encoder.outputFormatting = .sortedKeys
            for (index, decision) in kept.enumerated() where last.contains(index) {
                guard let line = try? encoder.encode(decision) else { continue }
                data.append(line)
                data.append(0x0A)
            }
            try AtomicFile.writeAndSync(data, to: url.path)
            try Durable.syncFolder(url.deletingLastPathComponent().path)
        }
        if let failure { throw failure }
    }

    /// The last decision on each photo the journal names, in the order they were made: what a
    /// run applies at its start (an undo as the verdict taken back).
    public func lastDecisions() throws(StateFileError) -> [ReviewDecision] {
        let decisions = try read().decisions
        let last = Self.lastIndexes(decisions)
        return decisions.enumerated().filter { last.contains($0.offset) && $0.element.kind.isVerdict }.map(\.element)
    }

    /// The editor's caption on each photo the journal names.
    public func captions() throws(StateFileError) -> PhotoCaptions {
        PhotoCaptions(try read().decisions)
    }

    /// The positions of the last verdict and of the last caption on each photo: all a journal
    /// needs to keep.
    static func lastIndexes(_ decisions: [ReviewDecision]) -> Set<Int> {
        var last: [String: Int] = [:]
        for (index, decision) in decisions.enumerated() { last[(decision.kind.isVerdict ? "v:" : "c:") + decision.photo] = index }
        return Set(last.values)
    }

    /// Runs `body` under an exclusive flock of the journal's lock file (not of the journal,
    /// which ``compact(keeping:)`` replaces: an append waiting on the old file's lock would
    /// write into a file no longer named).
    private func locked<Result>(_ body: () throws(Errno) -> Result) throws(StateFileError) -> Result {
        do throws(Errno) {
            let fd = try Durable.openCreating(url.path + ".lock", flags: O_RDWR | O_CREAT)
            defer { close(fd) }
            while flock(fd, LOCK_EX) != 0 {
                guard errno == EINTR else { throw Errno.current("flock \(url.path).lock") }
            }
            return try body()
        } catch {
            throw .writeFailed(path: url.path, reason: error.description)
        }
    }
}
