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

    /// `json`: events go to stdout as JSON lines (and no progress line is drawn there).
    init(json: Bool) {
        state = LiveRunState(following: bus)
        console = RunConsole(showsProgress: !json && isatty(STDOUT_FILENO) == 1)
        let sentences = SentenceBook()
        bus.subscribe { [console] event in
            if let line = sentences.line(for: event.event) { console.log(line) }
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
        Thread.detachNewThread { [console, state, ticker] in
            while !ticker.sleep(0.5) {
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
