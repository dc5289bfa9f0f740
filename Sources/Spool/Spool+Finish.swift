import Foundation
import RelayCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A photo every leg settled: removed (every destination has it) or moved to failed/ (one
/// refused it), as the ledger decided.
extension Spool {
    func finish(_ entry: SpoolEntry, _ settlement: PhotoDestinations.Settlement) throws(SpoolError) {
        // Also when a file could not be dealt with: the legs have ended all the same.
        defer {
            if settlement != .waiting { for observer in finishedObservers.current { observer(entry, settlement) } }
        }
        switch settlement {
        case .waiting:
            return
        case .delivered:
            defer { apply(.finished(id: entry.id)) }
            try writingSidecar(of: entry.id) { () throws(SpoolError) in try removeDelivered(entry) }
        case .refused(let reason, let statusCode):
            do throws(SpoolError) {
                try writingSidecar(of: entry.id) { () throws(SpoolError) in try storeFailed(entry, error: reason, statusCode: statusCode) }
            } catch {
                let photoLeft = !FileManager.default.fileExists(atPath: photoURL(entry.id).path)
                apply(.finishFailed(id: entry.id, photoLeft: photoLeft, now: Date()))
                throw error
            }
            apply(.finished(id: entry.id))
        }
    }

    /// Marks the sidecar delivered, then removes photo, rendition and sidecar. After a crash a
    /// "delivered" sidecar is cleaned up, never re-sent; and when the sidecar cannot be written
    /// (disk full) the photo is removed all the same, since a sidecar without its photo is
    /// dropped on start: either way the photo is not sent twice.
    func removeDelivered(_ entry: SpoolEntry) throws(SpoolError) {
        var done = entry
        done.state = .delivered
        done.inFlightSince = nil
        var failure: SpoolError?
        do { try JSONStateFile<SpoolEntry>(url: sidecarURL(entry.id)).save(done) } catch {
            failure = Self.describe(error, at: sidecarURL(entry.id))
        }
        unlink(photoURL(entry.id).path)
        for url in renditionURLs(entry) { unlink(url.path) }
        // The sidecar may be the last record of its number: it goes only once `.sequence` holds
        // it (if that write fails, a restart finds the delivered sidecar and cleans it up).
        if persistSequence(atLeast: entry.sequence) { unlink(sidecarURL(entry.id).path) }
        // Names that come back after a cut are cleaned up at start (the sidecar says delivered).
        do { try Durable.syncFolder(directory.path) } catch { failure = failure ?? Self.describe(error, at: directory) }
        if let failure { throw failure }
    }

    /// Moves photo and sidecar to failed/, with the answer.
    func storeFailed(_ entry: SpoolEntry, error: String, statusCode: Int?) throws(SpoolError) {
        var failed = entry
        failed.state = .failed
        failed.inFlightSince = nil
        failed.uploaderPID = nil
        failed.lastError = error
        failed.lastStatusCode = statusCode
        let failedPhoto = failedDirectory.appendingPathComponent("\(entry.id).jpg")
        // A failed/ folder may be emptied by hand: its numbers must not come back.
        persistSequence(atLeast: entry.sequence)
        do {
            try JSONStateFile<SpoolEntry>(url: failedDirectory.appendingPathComponent("\(entry.id).json")).save(failed)
            // A photo that vanished from the spool is still recorded as failed, not retried forever.
            guard rename(photoURL(entry.id).path, failedPhoto.path) == 0 || errno == ENOENT else { throw Errno.current("rename") }
            // A retried photo gets its renditions made again.
            for url in renditionURLs(entry) { unlink(url.path) }
            unlink(sidecarURL(entry.id).path)
            try Durable.syncFolder(failedDirectory.path)
            try Durable.syncFolder(directory.path)
        } catch {
            throw Self.describe(error, at: failedPhoto)
        }
    }
}
