import Foundation
import RelayCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The calls every destination's workers make, whichever destination they serve: take work,
/// find the file to send, settle the attempt. What differs between destinations (renditions,
/// photos still downloading, priority, reachability) is each one's ``SpoolDestination`` and the
/// ledger's rules, so one worker kind serves them all.
extension Spool {
    /// What a worker is given to upload.
    public enum Work: Sendable {
        /// A spooled photo, its leg in flight for the caller.
        case spooled(SpoolEntry)
        /// A photo (or its rendition) still downloading (cut-through): after a 2xx it is
        /// committed and in flight (``GrowingPhoto/ended``); otherwise call
        /// ``settleCutThrough(_:for:retryDelay:)``.
        case growing(GrowingPhoto)
    }

    /// Blocks until there is work for `destination`: the oldest committed photo due there (in
    /// flight for the caller, `attempts` counting this one; with its rendition when the
    /// destination takes it, so that ``uploadURL(for:)`` and `deliveryKey` give what it is
    /// sent), or a photo still downloading that it may read (`growing`). Nil once the spool is
    /// closed, or when `destination` is not one of the run's.
    public func claimWork(for destination: String, growing: GrowingAcceptance = .none) -> Work? {
        let pid = getpid()
        let applied = awaitWork { .claim(destination: destination, growing: growing, now: Date(), pid: pid) }
        switch applied.answer {
        case .handOut(.spooled(let entry)):
            return .spooled(entry)
        case .handOut(.growing(let offer)):
            guard let photo = applied.reading[offer] else { preconditionFailure("an offer is registered in the step that makes it") }
            return .growing(photo)
        case .closed, .wait, .nothing, .render, .adopted, .released, .cutThrough, .decided:
            return nil
        }
    }

    /// Records how a delivery of `entry` to `destination` ended. The photo leaves the spool once
    /// every destination it was taken for has it, or moves to failed/ once each has settled and
    /// one refused it (returns true then). A refusal that cannot be moved to failed/ is tried
    /// again in a minute, and throws; so does a sidecar that cannot be written.
    @discardableResult
    public func settle(_ entry: SpoolEntry, for destination: String, _ result: DestinationResult) throws(SpoolError) -> Bool {
        let applied = apply(.settle(id: entry.id, destination: destination, result, now: Date()))
        if let failure = applied.failure { throw failure }
        return applied.step.actions.contains {
            if case .finish(_, .refused) = $0 { return true }
            return false
        }
    }

    /// Ends a cut-through upload by a worker of `destination` that did not deliver the photo:
    /// if the download was committed into its hands meanwhile, the photo is in flight for the
    /// caller, to be settled by the usual rules (a retry then reads the committed file).
    /// Otherwise the claim is dropped and the photo goes once its download commits, not before
    /// `retryDelay` seconds from now.
    public func settleCutThrough(_ photo: GrowingPhoto, for destination: String, retryDelay: TimeInterval) -> OfferOutcome {
        let entry = photo.entry
        let applied = apply(
            .endCutThrough(
                id: entry.id, sequence: entry.sequence, destination: destination, offer: photo.offer, retryDelay: retryDelay, now: Date()))
        guard case .cutThrough(let outcome) = applied.answer else { return .abandoned }
        return outcome
    }

    /// Whether `destination` can be reached, as its workers find out: while it cannot, its queue
    /// does not hold back a low-priority destination.
    public func setReachable(_ reachable: Bool, destination: String) {
        apply(.reachable(destination: destination, reachable))
    }

    /// Each of the run's destinations' queue, by its id.
    public func queues() -> [String: SpoolQueue] {
        look(\.queues)
    }

    /// The photos in the spool that one of this run's destinations still has to take.
    public func pendingForRun() -> Int {
        look(\.pendingForRun)
    }

    /// The destinations this run does not deliver to that photos in the spool still wait for
    /// (said once at start, so that nobody forgets them).
    public func waitingElsewhere() -> [WaitingDestination] {
        look(\.waitingElsewhere)
    }

    /// Forgets what photos still owe the destination `query` names (its config id, an id
    /// prefix, or its label): they are no longer sent there. A photo no other destination waits
    /// for then leaves the spool (or moves to failed/, when one refused it). For `relay drop` and
    /// `relay config remove --release`, on a spool no run holds. Returns the photos released.
    public func release(destination query: String) throws(SpoolError) -> [SpoolEntry] {
        var released: [SpoolEntry] = []
        for id in look(\.order) {
            let applied = apply(.release(id: id, query: query))
            if case .released(let entry) = applied.answer { released.append(entry) }
            if let failure = applied.failure { throw failure }
        }
        return released
    }
}
