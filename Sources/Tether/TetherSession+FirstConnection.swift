import Foundation

/// The first connection's record of what was on the card (``FirstConnectionRule``): kept in the
/// registry while pending, written to the seen-log once every file has been looked at.
extension TetherSession {
    /// Keeps the first listing while the first connection's rule is pending (see
    /// ``FirstConnectionRule``); a failed write is retried at the next change.
    func rememberFirstListing() {
        guard let handles = firstConnection.toRemember else { return }
        do {
            try context.registry.noteFirstListing(serial: memory.serial, handles)
        } catch {
            context.report(
                .warning(
                    "could not keep the list of photos already on the card (\(error)); "
                        + "if relay stops before it has looked at them all, photos shot meanwhile may stay on the card"))
        }
    }

    /// On the first connection, once the files that were on the card have all been looked at,
    /// records them as not to be taken (one write), so that a later connection takes only what
    /// is new.
    func finishFirstConnection() {
        guard firstConnection.isPending else { return }
        do {
            try memory.seen.record(firstConnection.linesToRecord)
            try context.registry.noteExistingPhotosRecorded(serial: memory.serial)
        } catch {
            context.report(.warning("could not record the photos already on the card (\(error)); will try again"))
            return
        }
        let photos = firstConnection.finished()
        if photos > 0 {
            context.report(
                .info(
                    "\(photos) file(s) were already on the card of \(session.name) and stay there; "
                        + "relay takes what is shot from now on (--include-existing takes those too)"))
        }
    }
}
