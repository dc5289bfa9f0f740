import Foundation
import RelayCore
import RunEvents
import Spool

/// What both camera sources (PTP/IP and libgphoto2) do between connections: serve one until it
/// fails, report the failure once (not at every retry), wait with backoff and connect again,
/// until relay stops or the failure is one the photographer must fix first.
struct CameraReconnectLoop {
    /// The wait before the next attempt after `error`.
    var backoff: (Error) -> Backoff
    /// The message that ends the source for an error retrying cannot fix; nil to retry.
    var fatalMessage: (Error) -> String?
    /// A few words for the progress line.
    var shortReason: (Error) -> String
    let report: SourceReporter

    /// Calls `serve` (which calls its argument once the camera's session is open, and returns
    /// when relay stops) again and again until relay stops.
    func run(until stop: StopFlag, serve: (_ connected: () -> Void) throws -> Void) {
        var failures = 0
        var lastProblem = ""
        while !stop.isStopped {
            do {
                try serve {
                    failures = 0
                    lastProblem = ""
                }
                break
            } catch {
                if stop.isStopped { break }
                if let message = fatalMessage(error) {
                    report(.unusable(message))
                    break
                }
                let delay = backoff(error).ceiling(attempt: failures)
                failures += 1
                let problem = "\(error)"
                if problem != lastProblem {
                    report(.lost(reason: problem, summary: shortReason(error), retryIn: delay, attempt: failures))
                    lastProblem = problem
                }
                report(
                    .connecting(
                        String(
                            format: "camera: reconnecting in %.0fs (attempt %d): %@", delay.rounded(.up), failures,
                            shortReason(error))))
                stop.sleep(delay)
            }
        }
    }
}

/// What relay keeps per camera serial across the reconnects of one run.
final class CameraMemories {
    private let home: RelayHome
    private var memories: [String: CameraMemory] = [:]

    init(home: RelayHome) {
        self.home = home
    }

    func memory(for serial: String) throws(StateFileError) -> CameraMemory {
        if let memory = memories[serial] { return memory }
        let memory = try CameraMemory(serial: serial, home: home)
        memories[serial] = memory
        return memory
    }

    /// Drops every partial download (relay is stopping; `.incoming/` is cleared on start anyway).
    func discardPartials(in spool: Spool) {
        for memory in memories.values { memory.discardPartials(in: spool) }
    }
}
