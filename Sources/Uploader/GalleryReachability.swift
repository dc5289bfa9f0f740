import Foundation

/// Whether the gallery can be reached at all, as the workers' attempts show it. While it cannot
/// (nothing listening, no route, no name), one attempt at a time probes it after a backoff and
/// every other photo waits in the spool untried: a venue network that is down for an hour then
/// costs one attempt per backoff step instead of one per photo, so no photo burns attempts and the
/// upload history is not flooded with the same failure.
///
/// A value driven by the caller's clock, so the rules are tested without sockets or waiting.
public struct GalleryReachability: Sendable, Equatable {
    /// What one attempt's outcome says about the gallery.
    public enum Evidence: Sendable, Equatable {
        /// An answer, or a connection that got as far as sending.
        case reachable
        /// Refused, no route, or the name did not resolve.
        case unreachable
        /// Nothing either way (the request was never sent, or it timed out).
        case unknown
    }

    /// What a worker about to take a photo may do.
    public enum Turn: Sendable, Equatable {
        /// Send as usual.
        case send
        /// Send one photo as the probe; the others wait for its outcome.
        case probe
        /// Wait until this time (nil: until the probe in progress ends).
        case wait(until: Date?)
    }

    /// A change worth telling the user about.
    public enum Change: Sendable, Equatable {
        case lost(nextTry: Date)
        case stillUnreachable(nextTry: Date)
        case regained
    }

    private enum State: Sendable, Equatable {
        case reachable
        case unreachable(until: Date, failures: Int)
        case probing(failures: Int)
    }

    private var state = State.reachable

    public init() {}

    public var isReachable: Bool { state == .reachable }

    /// The evidence in one attempt's outcome.
    public static func evidence(of outcome: Result<UploadResponse, UploadTransportError>) -> Evidence {
        guard case .failure(let error) = outcome else { return .reachable }
        switch error.category {
        case .couldNotConnect, .dns: return .unreachable
        case .timeout, .invalidRequest, .fileUnreadable, .aborted, .other: return .unknown
        case .connectionLost, .tls, .sourceIncomplete: return .reachable
        }
    }

    /// Called before a worker takes a photo; a `.probe` turn must be followed by `record`.
    public mutating func turn(at now: Date) -> Turn {
        switch state {
        case .reachable:
            return .send
        case .probing:
            return .wait(until: nil)
        case .unreachable(let until, let failures):
            guard now >= until else { return .wait(until: until) }
            state = .probing(failures: failures)
            return .probe
        }
    }

    /// Records an attempt's evidence. `delay(n)` is the wait after the n-th failure in a row
    /// (0 for the first). An attempt that was not the probe and failed after the gallery was
    /// already found unreachable (it started before) does not lengthen the wait.
    public mutating func record(
        _ evidence: Evidence, probe: Bool, at now: Date, delay: (Int) -> TimeInterval
    ) -> Change? {
        switch (evidence, state) {
        case (.reachable, .reachable):
            return nil
        case (.reachable, _):
            state = .reachable
            return .regained
        case (.unreachable, .reachable):
            let nextTry = now.addingTimeInterval(delay(0))
            state = .unreachable(until: nextTry, failures: 1)
            return .lost(nextTry: nextTry)
        case (.unreachable, .probing(let failures)) where probe:
            let nextTry = now.addingTimeInterval(delay(failures))
            state = .unreachable(until: nextTry, failures: failures + 1)
            return .stillUnreachable(nextTry: nextTry)
        case (.unknown, .probing(let failures)) where probe:
            // The probe told nothing: the next turn probes again.
            state = .unreachable(until: now, failures: failures)
            return nil
        case (.unreachable, _), (.unknown, _):
            return nil
        }
    }
}
