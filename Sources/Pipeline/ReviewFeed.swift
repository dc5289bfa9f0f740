import Foundation
import RelayCore
import RunEvents
import Spool

/// Brings the decisions on held photos to the running spool: those made while relay was
/// stopped when the run starts, then every decision appended to the review journal (by `relay
/// review`, or by the editor's page through ``decide(_:_:by:)``) as the journal is written. What
/// each decision did is published (`photo.approved`, `photo.rejected`, `photo.undone`), a
/// rejection is recorded in the history, and a photo that comes in held is announced
/// (`photo.held`).
///
/// One thread reads the journal and applies it (``run()``), waking only when the journal is
/// written (inotify), the spool changed, or a rejection's undo window ends; no lock is held
/// while it reads, syncs or writes.
final class ReviewFeed: Sendable {
    /// How many batches of outcomes are kept for a page's decision waiting for its own.
    private static let keptBatches = 64

    private let journal: ReviewJournal
    private let spool: Spool
    private let history: HistoryStore
    private let bus: RunEventBus
    /// Handed each photo an approval sends, with its file open (the venue wall's picture).
    private let approvalSink = LockedBox<(@Sendable (_ id: String, _ name: String, _ photographer: String?, _ file: Int32) -> Void)?>(nil)
    /// Wakes the feed's thread: the journal written, the spool changed, a stop.
    private let events: EventWaiter
    /// What the feed's thread applied, for a decision of the page to wait on.
    private let applied = LockedBox(Applied())
    /// The photos announced as held (the feed's thread's alone; a box to be `Sendable`).
    private let announced = LockedBox<Set<String>>([])
    /// Changes whenever the held photos or a decision did; apart, so that a page asking for it
    /// never waits for a long batch of decisions.
    private let changes = LockedBox(0)
    /// The editor's caption on each photo, as the journal says (read at start, then as written).
    private let captions = LockedBox(PhotoCaptions())
    /// The photos approved lately, newest last, for the desk's "approved" filter once they have
    /// left the spool (for ``recentWindow``).
    private let approved = LockedBox([(photo: DeskPhoto, at: Date)]())
    /// How long an approved photo stays on the desk's "approved" filter: as long as a rejected
    /// one can be undone.
    static let recentWindow = PhotoLedger.undoWindow

    private struct Applied: Sendable {
        /// Where the journal was read up to.
        var offset: UInt64 = 0
        /// The last batches read: where each ended in the journal, and what each decision in it
        /// did, by photo (the last, when one photo had several).
        var batches: [(end: UInt64, outcomes: [String: ReviewOutcome])] = []
        var stopped = false
    }

    init(journal: ReviewJournal, spool: Spool, history: HistoryStore, bus: RunEventBus) throws(Errno) {
        self.journal = journal
        self.spool = spool
        self.history = history
        self.bus = bus
        events = try EventWaiter(
            folder: journal.url.deletingLastPathComponent(), names: [journal.url.lastPathComponent])
    }

    /// Before the workers start and before the editor's page is served: the journal keeps only
    /// the photos still in the spool (or failed/), and the last decision on each is applied, an
    /// undo included (one made while relay was stopped is reported as it takes effect; one an
    /// earlier run already applied changes nothing and says nothing).
    func start() {
        var offset: UInt64 = 0
        do {
            try journal.compact(keeping: Set(spool.entryIDs()))
            let read = try journal.read()
            captions.withLockedValue { $0 = PhotoCaptions(read.decisions) }
            let verdicts = ReviewVerdicts(read.decisions)
            for decision in try journal.lastDecisions() {
                apply(decision.photo, verdict: verdicts[decision.photo], by: decision.by, quietIfUnchanged: true)
            }
            if read.unreadable > 0 {
                warn("\(read.unreadable) lines of \(journal.url.path) are not decisions: skipped, and the file is left as it is")
            }
            offset = read.end
        } catch {
            warn("the review decisions cannot be read: \(error)")
        }
        applied.change { $0.offset = offset }
        announced.withLockedValue { $0 = Set(spool.heldPhotos().map(\.entry.id)) }
    }

    /// Until ``stop()``: applies what is added to the journal as it is written, announces photos
    /// newly held as the spool changes, and lets rejected photos leave when their undo window
    /// ends (the time the spool names).
    func run() {
        spool.onChange { [events] in events.wake() }
        var nextUndoEnd = tick()
        var lastLook = Date()
        var lookDue: Date?
        while true {
            let reasons = events.wait(until: [nextUndoEnd, lookDue].compactMap { $0 }.min())
            if applied.withLockedValue(\.stopped) { return }
            if reasons.contains(.files) { readJournal() }
            // A burst changes the spool hundreds of times a second, and each look walks every
            // photo: a change alone is looked at no more often than `spoolLookGap`.
            let due = lastLook.addingTimeInterval(Self.spoolLookGap)
            guard reasons.contains(.files) || reasons.contains(.deadline) || Date() >= due else {
                lookDue = due
                continue
            }
            lookDue = nil
            lastLook = Date()
            announceHeld()
            nextUndoEnd = tick()
        }
    }

    /// The shortest gap between two looks at the held photos that only a spool change asked for.
    static let spoolLookGap: TimeInterval = 0.2

    /// Ends ``run()``; a page's decision waiting for it is answered without outcomes.
    func stop() {
        applied.change { $0.stopped = true }
        events.wake()
    }

    private func tick() -> Date? {
        do { return try spool.tick() } catch {
            warn("a rejected photo could not leave the spool: \(error)")
            return nil
        }
    }

    /// Applies the decisions appended since the last read.
    private func readJournal() {
        let offset = applied.withLockedValue(\.offset)
        guard let read = try? journal.read(from: offset), read.end != offset else { return }
        var verdicts = ReviewVerdicts()
        var outcomes: [String: ReviewOutcome] = [:]
        for decision in read.decisions {
            if decision.kind == .caption {
                captions.withLockedValue { $0.apply([decision]) }
                if let entry = spool.entry(decision.photo) {
                    let words = decision.caption.map { $0.isEmpty ? "cleared" : "set" } ?? "set"
                    bus.publish(.run(.notice("caption of \(entry.uploadName) \(words) by \(decision.by)", .info)))
                }
                continue
            }
            verdicts.apply([decision])
            let verdict = decision.kind == .undo ? nil : verdicts[decision.photo]
            outcomes[decision.photo] = apply(decision.photo, verdict: verdict, by: decision.by, quietIfUnchanged: false)
        }
        // Counted before a page's decision learns it was applied: its next look sees the change.
        changes.withLockedValue { $0 += 1 }
        applied.change { applied in
            applied.offset = read.end
            applied.batches.append((read.end, outcomes))
            if applied.batches.count > Self.keptBatches { applied.batches.removeFirst() }
        }
    }

    /// Announces the photos newly held.
    private func announceHeld() {
        let held = spool.heldPhotos()
        let ids = Set(held.map(\.entry.id))
        let before = announced.withLockedValue { announced in
            defer { announced = ids }
            return announced
        }
        guard ids != before else { return }
        for photo in held where !before.contains(photo.entry.id) {
            bus.publish(.review(.held(Self.ref(photo.entry), destinations: photo.destinations)))
        }
        changes.withLockedValue { $0 += 1 }
    }

    /// A number that changes whenever the held photos change or a decision is applied: a page
    /// that saw it needs nothing new.
    var version: Int { changes.withLockedValue { $0 } }

    /// Decisions made here (the editor's page): recorded in the journal and synced, then applied
    /// by the feed's thread as it reads them, which this waits for. Returns what each did, by
    /// photo; a photo no longer in the spool is left out (and nothing is recorded for it).
    func decide(_ ids: [String], _ kind: ReviewDecision.Kind, by: String) throws(StateFileError) -> [String: ReviewOutcome] {
        let known = ids.filter { spool.entry($0) != nil }
        guard !known.isEmpty else { return [:] }
        let now = Date()
        let end = try journal.append(known.map { ReviewDecision(photo: $0, kind: kind, at: now, by: by) })
        events.wake(.files)
        // Bounded: a journal replaced behind relay's back is read from its start, and may never
        // reach `end`; the decisions are recorded all the same.
        let giveUp = Date().addingTimeInterval(10)
        return applied.wait { applied in
            if applied.stopped || Date() >= giveUp { return .ready([:]) }
            guard applied.offset >= end else { return .until(giveUp) }
            // The batch that read this append: the first to end at or past it.
            let outcomes = applied.batches.first { $0.end >= end }?.outcomes ?? [:]
            return .ready(outcomes.filter { known.contains($0.key) })
        }
    }

    /// The photos approved within ``recentWindow`` that left the spool since, newest last.
    func recentlyApproved(leaving inSpool: Set<String>) -> [DeskPhoto] {
        let since = Date().addingTimeInterval(-Self.recentWindow)
        return approved.withLockedValue { approved in
            approved.removeAll { $0.at < since }
            return approved.map(\.photo).filter { !inSpool.contains($0.entry.id) }
        }
    }

    private func remember(_ entry: SpoolEntry, approvedFor destinations: [String]) {
        approved.withLockedValue { approved in
            approved.removeAll { $0.photo.entry.id == entry.id }
            approved.append((DeskPhoto(entry: entry, state: .approved, destinations: destinations), Date()))
            if approved.count > 1_000 { approved.removeFirst(approved.count - 1_000) }
        }
    }

    /// The editor's caption on the photo `id`, if any.
    func caption(of id: String) -> PhotoCaption? {
        captions.withLockedValue { $0[id] }
    }

    /// Records the editor's caption on the photo `id` (synced before it returns) and uses it from
    /// now on; returns which destinations it reaches, nil when the photo is not in the spool.
    func setCaption(_ id: String, _ caption: PhotoCaption, by: String) throws(StateFileError) -> CaptionOutcome? {
        guard let legs = spool.legs(of: id) else { return nil }
        let decision = ReviewDecision(photo: id, caption: caption, by: by)
        try journal.append([decision])
        captions.withLockedValue { $0.apply([decision]) }
        events.wake(.files)
        return CaptionOutcome(legs)
    }

    /// Hands `sink` each photo an approval sends, with who shot it and its file open (the sink
    /// closes it).
    func onApproval(_ sink: @escaping @Sendable (_ id: String, _ name: String, _ photographer: String?, _ file: Int32) -> Void) {
        approvalSink.withLockedValue { $0 = sink }
    }

    /// Applies `verdict` on `photo` and says what it did; nil when the photo is not in the spool.
    @discardableResult
    private func apply(_ photo: String, verdict: ReviewVerdict?, by: String, quietIfUnchanged: Bool) -> ReviewOutcome? {
        let entry = spool.entry(photo)
        // Opened before the approval lets a worker send it, and the spool remove it.
        let sink = verdict == .approved ? approvalSink.withLockedValue { $0 } : nil
        var file: Int32 = -1
        if sink != nil, let entry { file = open(spool.smallestPictureURL(for: entry).path, O_RDONLY | O_CLOEXEC) }
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
                sink(entry.id, entry.uploadName, entry.photographer, file)
            } else {
                close(file)
            }
        }
        guard let decisions, let entry else { return nil }
        let outcome = Self.outcome(of: decisions)
        if verdict == .approved, !outcome.released.isEmpty { remember(entry, approvedFor: outcome.released) }
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
