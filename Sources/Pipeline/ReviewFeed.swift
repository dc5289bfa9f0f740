import Foundation
import RelayCore
import RunEvents
import Spool

/// Brings the decisions on held photos to the running spool: those made while relay was
/// stopped when the run starts, then every decision appended to the review journal (by `relay
/// review`) as soon as the journal grows; the editor's page's decisions are applied before its
/// POST is answered. What each decision did is published (`photo.approved`, `photo.rejected`,
/// `photo.undone`), a rejection is recorded in the history, and a photo that comes in held is
/// announced (`photo.held`).
final class ReviewFeed: Sendable {
    /// How often the held photos are looked at for new ones (and the journal read in any case).
    static let pollInterval = 0.2
    /// How often the journal's size is looked at: `relay review` reaches the spool within this.
    static let journalInterval = 0.02

    private let journal: ReviewJournal
    private let spool: Spool
    private let history: HistoryStore
    private let bus: RunEventBus
    /// Handed each photo an approval sends, with its file open (the venue wall's picture).
    private let approvalSink = LockedBox<(@Sendable (_ id: String, _ name: String, _ file: Int32) -> Void)?>(nil)
    /// Where the journal was read up to and the photos already announced as held; one look at
    /// a time holds it (and applies what it found).
    private let progress = LockedBox(Progress())
    /// Changes whenever the held photos or a decision did; apart, so that a page asking for it
    /// never waits for a long batch of decisions.
    private let changes = LockedBox(0)

    private struct Progress: Sendable {
        var offset: UInt64 = 0
        var announced: Set<String> = []
    }

    init(journal: ReviewJournal, spool: Spool, history: HistoryStore, bus: RunEventBus) {
        self.journal = journal
        self.spool = spool
        self.history = history
        self.bus = bus
    }

    /// Before the workers start and before the editor's page is served: the journal keeps only
    /// the photos still in the spool (or failed/), and the last decision on each is applied, an
    /// undo included (one made while relay was stopped is reported as it takes effect; one an
    /// earlier run already applied changes nothing and says nothing).
    func start() {
        progress.withLockedValue { progress in
            do {
                try journal.compact(keeping: Set(spool.entryIDs()))
                let read = try journal.read()
                let verdicts = ReviewVerdicts(read.decisions)
                for decision in try journal.lastDecisions() {
                    apply(decision.photo, verdict: verdicts[decision.photo], by: decision.by, quietIfUnchanged: true)
                }
                if read.unreadable > 0 {
                    warn("\(read.unreadable) lines of \(journal.url.path) are not decisions: skipped, and the file is left as it is")
                }
                progress.offset = read.end
            } catch {
                warn("the review decisions cannot be read: \(error)")
            }
            progress.announced = Set(spool.heldPhotos().map(\.entry.id))
        }
    }

    /// Looks at the journal's size every `journalInterval` (one `stat`) and applies what was
    /// added at once; looks for photos newly held, and lets rejected photos whose undo window
    /// passed leave, every `pollInterval`; until `stop`.
    func run(until stop: StopFlag) {
        var lastSize = journalSize()
        var lastFullLook = Date()
        while !stop.sleep(Self.journalInterval) {
            let size = journalSize()
            if size != lastSize || Date().timeIntervalSince(lastFullLook) >= Self.pollInterval {
                lastSize = size
                lastFullLook = Date()
                poll()
                do { try spool.tick() } catch { warn("a rejected photo could not leave the spool: \(error)") }
            }
        }
    }

    private func journalSize() -> Int64 {
        var info = stat()
        return stat(journal.url.path, &info) == 0 ? Int64(info.st_size) : -1
    }

    /// Applies the decisions appended since the last look, then announces photos newly held.
    /// Returns what each decision applied did, by photo (the last, when one photo had several).
    @discardableResult
    func poll() -> [String: ReviewOutcome] {
        progress.withLockedValue { look(&$0) }
    }

    private func look(_ progress: inout Progress) -> [String: ReviewOutcome] {
        var outcomes: [String: ReviewOutcome] = [:]
        if let read = try? journal.read(from: progress.offset), read.end != progress.offset {
            var verdicts = ReviewVerdicts()
            for decision in read.decisions {
                verdicts.apply([decision])
                let verdict = decision.kind == .undo ? nil : verdicts[decision.photo]
                outcomes[decision.photo] = apply(decision.photo, verdict: verdict, by: decision.by, quietIfUnchanged: false)
            }
            progress.offset = read.end
            changes.withLockedValue { $0 += 1 }
        }
        let held = spool.heldPhotos()
        let ids = Set(held.map(\.entry.id))
        guard ids != progress.announced else { return outcomes }
        for photo in held where !progress.announced.contains(photo.entry.id) {
            bus.publish(.review(.held(Self.ref(photo.entry), destinations: photo.destinations)))
        }
        progress.announced = ids
        changes.withLockedValue { $0 += 1 }
        return outcomes
    }

    /// A number that changes whenever the held photos change or a decision is applied: a page
    /// that saw it needs nothing new.
    var version: Int { changes.withLockedValue { $0 } }

    /// Decisions made here (the editor's page): recorded in the journal, synced, then applied
    /// at once. Returns what each did, by photo; a photo no longer in the spool is left out
    /// (and nothing is recorded for it).
    func decide(_ ids: [String], _ kind: ReviewDecision.Kind, by: String) throws(StateFileError) -> [String: ReviewOutcome] {
        let known = ids.filter { spool.entry($0) != nil }
        let now = Date()
        // Appended and read back in one hold of `progress`: the run's own look cannot take
        // these decisions (and their outcomes) in between.
        return try progress.withLockedValue { progress throws(StateFileError) in
            try journal.append(known.map { ReviewDecision(photo: $0, kind: kind, at: now, by: by) })
            return look(&progress).filter { known.contains($0.key) }
        }
    }

    /// Hands `sink` each photo an approval sends, with its file open (the sink closes it).
    func onApproval(_ sink: @escaping @Sendable (_ id: String, _ name: String, _ file: Int32) -> Void) {
        approvalSink.withLockedValue { $0 = sink }
    }

    /// Applies `verdict` on `photo` and says what it did; nil when the photo is not in the spool.
    @discardableResult
    private func apply(_ photo: String, verdict: ReviewVerdict?, by: String, quietIfUnchanged: Bool) -> ReviewOutcome? {
        let entry = spool.entry(photo)
        // Opened before the approval lets a worker send it, and the spool remove it.
        let sink = verdict == .approved ? approvalSink.withLockedValue { $0 } : nil
        var file: Int32 = -1
        if sink != nil, let entry { file = open(spool.uploadURL(for: entry).path, O_RDONLY | O_CLOEXEC) }
        let decisions: [PhotoLedger.Decision]?
        do {
            decisions = try spool.decide(photo, verdict: verdict)
        } catch {
            if file >= 0 { close(file) }
            warn("the decision on \(entry?.uploadName ?? photo) could not be saved in the spool: \(error)")
            return nil
        }
        if file >= 0 {
            if let sink, let entry, decisions?.contains(where: { $0.change == .released }) == true {
                sink(entry.id, entry.uploadName, file)
            } else {
                close(file)
            }
        }
        guard let decisions, let entry else { return nil }
        let outcome = Self.outcome(of: decisions)
        if quietIfUnchanged && !outcome.changedAnything { return outcome }
        bus.publish(.review(.decided(Self.ref(entry), verdict: verdict, by: by, outcome: outcome)))
        for destination in outcome.rejected {
            var record = HistoryRecord(
                captureNumber: entry.timerShot ?? entry.sequence, timestamp: Date(), success: false, statusCode: nil,
                errorMessage: "rejected by \(by): never sent", requestSummary: "", responseSummary: nil,
                isTimerCapture: entry.isTimerCapture, fileName: entry.uploadName, bytes: entry.bytes, durationSeconds: 0, attempt: 0,
                destination: destination)
            record.decision = .rejected
            record.photographer = entry.photographer
            AttemptHistory.append(record, to: history, bus: bus)
        }
        return outcome
    }

    private static func outcome(of decisions: [PhotoLedger.Decision]) -> ReviewOutcome {
        ReviewOutcome(
            released: decisions.labels(.released), rejected: decisions.labels(.rejected), heldAgain: decisions.labels(.heldAgain),
            alreadySent: decisions.labels(.alreadySent), tooLate: decisions.labels(.tooLate))
    }

    private func warn(_ message: String) {
        bus.publish(.run(.notice(message, .warning)))
    }

    private static func ref(_ entry: SpoolEntry) -> PhotoRef {
        PhotoRef(id: entry.id, name: entry.uploadName, bytes: entry.bytes, shot: entry.timerShot, photographer: entry.photographer)
    }
}
