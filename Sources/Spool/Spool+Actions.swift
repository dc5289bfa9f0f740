import Foundation
import RelayCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The spool's one way to change: an input is applied to the ledger under the lock (waking every
/// waiter), and the actions it returns are run outside the lock (AsyncHTTPClient's
/// `modifyStateAndRunActions`). A caller that waits for work (a worker, the rendition thread)
/// asks the ledger under the lock until it hands something out, sleeping until the time the
/// ledger names or the next change.
extension Spool {
    /// What the ledger decided, with the photos read as they download that it names.
    struct Applied {
        var step: PhotoLedger.Step
        var reading: [Int: GrowingPhoto]
        /// The first thing that failed while the actions ran.
        var failure: SpoolError?

        var answer: PhotoLedger.Answer { step.answer }
    }

    /// Applies `input` and runs what the ledger decided. `registering`: a photo read as it
    /// downloads, known by its offer from now on.
    @discardableResult
    func apply(_ input: PhotoLedger.Input, registering growing: GrowingPhoto? = nil) -> Applied {
        let decided = state.change { state in
            if let growing { state.reading[growing.offer] = growing }
            return state.decide(input)
        }
        return run(decided)
    }

    /// Asks the ledger (`input` is made afresh each time, with the time then) until it says more
    /// than "wait", sleeping until the time it names or the next change; then runs what it decided.
    func awaitWork(_ input: () -> PhotoLedger.Input) -> Applied {
        let decided = state.wait { state -> LockedWait<Applied> in
            let applied = state.decide(input())
            if case .wait(let until) = applied.answer { return .until(until) }
            return .ready(applied)
        }
        return run(decided)
    }

    /// Asks the ledger a question whose type is its answer (a number, a name): under the lock,
    /// nothing to run.
    func ask<Answer>(_ question: (inout PhotoLedger) -> Answer) -> Answer {
        state.change { question(&$0.ledger) }
    }

    /// A new offer number, for a photo (or rendition) about to be offered.
    func takeOfferNumber() -> Int {
        state.withLockedValue { state in
            defer { state.nextOffer += 1 }
            return state.nextOffer
        }
    }

    private func run(_ decided: Applied) -> Applied {
        var result = decided
        func failed(_ error: Error, at url: URL) {
            if result.failure == nil { result.failure = Self.describe(error, at: url) }
        }
        for action in decided.step.actions {
            switch action {
            case .end(let offer, let outcome):
                decided.reading[offer]?.end(outcome)
            case .saveSidecar(let id):
                do { try saveSidecar(id) } catch { failed(error, at: sidecarURL(id)) }
            case .finish(let entry, let settlement):
                do throws(SpoolError) { try finish(entry, settlement) } catch { failed(error, at: photoURL(entry.id)) }
            case .handOver(let offer, let entry):
                // Its sidecar says in flight before the worker may read the last byte.
                let saved = (try? saveSidecar(entry.id)) != nil
                apply(.handedOver(id: entry.id, offer: offer, saved: saved))
            case .persistSequence(let sequence):
                persistSequence(atLeast: sequence)
            case .removePhoto(let id):
                unlink(photoURL(id).path)
            case .removeRendition(let id, let spec):
                unlink(renditionURL(id, spec: spec).path)
            case .removeSidecar(let id):
                unlink(sidecarURL(id).path)
            case .removeFailedSidecar(let id):
                unlink(failedDirectory.appendingPathComponent("\(id).json").path)
            }
        }
        if !decided.step.changesNothing {
            for observer in observers.current { observer() }
        }
        return result
    }
}

extension Spool.State {
    /// Applies `input` to the ledger; the photos its step names are looked up (and those whose
    /// reading ends are let go).
    mutating func decide(_ input: PhotoLedger.Input) -> Spool.Applied {
        let step = ledger.apply(input)
        var named: [Int: GrowingPhoto] = [:]
        switch step.answer {
        case .handOut(.growing(let offer)), .render(.growing(let offer, _)): named[offer] = reading[offer]
        default: break
        }
        for action in step.actions {
            switch action {
            case .end(let offer, _): named[offer] = reading.removeValue(forKey: offer)
            case .handOver(let offer, _): named[offer] = reading[offer]
            default: break
            }
        }
        return Spool.Applied(step: step, reading: named)
    }
}
