import Foundation
import RelayCore
import RunEvents
import Spool

/// What the editor's page needs of a run, as a value it can keep on its own threads: the
/// photos held for review, a number that changes with them, decisions applied at once, and
/// each photo's file for its thumbnail.
public struct RunReview: Sendable {
    fileprivate let spool: Spool
    fileprivate let feed: ReviewFeed
    /// Whether a destination of the run holds photos for review (its rule is not `all`).
    public var holdsPhotos: Bool { !holding.isEmpty }
    /// The labels of the destinations that hold photos for review.
    public let holding: Set<String>
    /// Whether one of them sends photos selected in the camera.
    public let selects: Bool

    /// The photos on the editor's desk, oldest first: held, or decided and still in the spool,
    /// and those approved within the last two minutes that were sent and left it.
    public func desk() -> [DeskPhoto] {
        let inSpool = spool.deskPhotos()
        let gone = feed.recentlyApproved(leaving: Set(inSpool.map(\.entry.id)))
        // The approved that left the spool first, in the order they came in: older than anything
        // still there, as the page lists newest first.
        return gone.sorted { $0.entry.sequence < $1.entry.sequence } + inSpool
    }

    /// The editor's caption on the photo `id`, if any.
    public func caption(of id: String) -> PhotoCaption? {
        feed.caption(of: id)
    }

    /// Records the editor's caption on the photo `id` (synced) for every destination that has
    /// not sent it; nil when the photo is not in the spool.
    public func setCaption(_ id: String, _ caption: PhotoCaption, by: String) throws(StateFileError) -> CaptionOutcome? {
        try feed.setCaption(id, caption, by: by)
    }

    /// Changes whenever the held photos change or a decision is applied.
    public var version: Int { feed.version }

    /// Records the decision on each photo of `ids` in the spool (synced) and applies it now;
    /// returns what it did to each (a photo no longer in the spool is left out).
    public func decide(_ ids: [String], _ kind: ReviewDecision.Kind, by: String) throws(StateFileError) -> [String: ReviewOutcome] {
        try feed.decide(ids, kind, by: by)
    }

    /// Hands `sink` each photo an approval sends, with who shot it and its file open (the sink
    /// closes it): the venue wall's pictures and their credit.
    public func onApproval(_ sink: @escaping @Sendable (_ id: String, _ name: String, _ photographer: String?, _ file: Int32) -> Void) {
        feed.onApproval(sink)
    }

    /// The file that best shows the photo `id` small: its smallest rendition made, else the
    /// photo; nil once it left the spool.
    public func file(_ id: String) -> URL? {
        spool.entry(id).map(spool.smallestPictureURL(for:))
    }

    /// The photo `id`'s own file and its renditions made so far, for the editor's loupe; nil
    /// once it left the spool.
    public func pictures(_ id: String) -> (original: URL, renditions: [URL])? {
        spool.entry(id).map { (spool.photoURL(for: $0), spool.madeRenditionURLs(for: $0)) }
    }
}

extension RelayRun {
    /// The run's held photos and decisions, for the editor's page.
    public var review: RunReview {
        RunReview(
            spool: spool, feed: reviewFeed, holding: Set(destinations.filter(\.sendRule.holds).map(\.label)),
            selects: destinations.contains { $0.sendRule.readsSelection })
    }
}
