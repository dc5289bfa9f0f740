import Foundation
import RelayCore
import RunEvents

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a run's events go: the console (a line per event on stderr, and the progress line when
/// stdout is a terminal), and with `--json` the events as JSON lines on stdout instead of the
/// progress line. One bus per run; the status page subscribes to the same bus. Each output is an
/// observer with a bounded queue: a reader that stops reading loses events, never the uploads.
final class RunOutputs: Sendable {
    let bus = RunEventBus()
    let state: LiveRunState
    /// Stops the run: set by SIGINT/SIGTERM, by a capture run that is complete, and when the
    /// `--json` reader closed stdout.
    let stop = StopFlag()
    /// Set when stdout was closed under `--json`: the run stops and says so.
    let readerGone = StopFlag()
    private let console: RunConsole
    private let ticker = StopFlag()
    private let banner = HeldBanner()

    /// `json`: events go to stdout as JSON lines (and no progress line is drawn there).
    init(json: Bool) {
        state = LiveRunState(following: bus)
        console = RunConsole(showsProgress: !json && isatty(STDOUT_FILENO) == 1)
        let sentences = SentenceBook()
        bus.subscribe { [console, banner] event in
            guard let line = sentences.line(for: event.event) else {
                if case .source(_, .unusable) = event.event { banner.refuse() }
                return
            }
            switch event.event {
            case .run(.started):
                banner.hold(line)
                return
            case .run(.stopping), .run(.stopped):
                // A source refused before anything was said (a camera relay cannot use): its
                // refusal, which follows, is the run's one line.
                if banner.refusedWhileHeld { return }
            default:
                break
            }
            if let held = banner.release() { console.log(held) }
            console.log(line)
        }
        if json {
            bus.subscribe { [console, stop, readerGone] event in
                guard !readerGone.isStopped, !RunConsole.write(STDOUT_FILENO, event.jsonLine + "\n") else { return }
                readerGone.stop()
                console.log("stdout was closed (the --json reader went away): stopping; photos not yet delivered stay in the spool")
                stop.stop()
            }
        }
        bus.subscribe { [console, ticker] event in
            if case .run(.stopped) = event.event {
                ticker.stop()
                console.finishProgress()
            }
        }
        // On a clock: the progress line shows ages ("last photo 4 s ago") and the banner is let go
        // after a second.
        Thread.detachNewThread { [console, state, ticker, banner] in
            while !ticker.sleep(0.5) {
                if let held = banner.release(heldFor: HeldBanner.holdSeconds) { console.log(held) }
                let snapshot = state.snapshot
                if snapshot.startedAt != nil { console.progress(ProgressLine.format(snapshot, at: Date())) }
            }
        }
    }

    /// Stops the progress line (the run is over, or never started).
    func finish() {
        ticker.stop()
        bus.flush(until: Date().addingTimeInterval(1))
        console.finishProgress()
    }
}

/// The run's first line ("relay: camera … → POST …"), held for a moment: a source refused at once
/// (a camera relay does not support) makes its refusal the run's one line; otherwise the banner
/// comes before the next line, or after ``holdSeconds``, whichever is first.
private final class HeldBanner: Sendable {
    static let holdSeconds: TimeInterval = 1
    private let state = LockedBox((line: String?.none, heldSince: Date(), refused: false))

    func hold(_ banner: String) {
        state.withLockedValue { state in
            state.line = banner
            state.heldSince = Date()
        }
    }

    /// A source is unusable.
    func refuse() {
        state.withLockedValue { $0.refused = true }
    }

    /// Whether a source was refused while the banner was still held (nothing else was said).
    var refusedWhileHeld: Bool {
        state.withLockedValue { $0.refused && $0.line != nil }
    }

    /// The banner if it is still held (and has been for `heldFor` seconds), now let go.
    func release(heldFor: TimeInterval = 0) -> String? {
        state.withLockedValue { state in
            guard let held = state.line, !state.refused, Date().timeIntervalSince(state.heldSince) >= heldFor else { return nil }
            state.line = nil
            return held
        }
    }
}

/// The console's `EventSentence`, learning the run's shape from its start.
///
/// `@unchecked Sendable`: `sentence` is used only by the one console observer, which the bus calls on its own serial queue.
private final class SentenceBook: @unchecked Sendable {
    private var sentence = EventSentence()

    func line(for event: RunEvent) -> String? {
        sentence.learn(event)
        return sentence.line(for: event)
    }
}
