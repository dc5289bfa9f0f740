import Foundation
import Intake
import PTPIP
import PTPWire
import RelayCore
import RunEvents
import Spool

/// The download pipeline of a tether session: a photo is downloaded in chunks into the spool's
/// staged ingest (an idle upload worker may send it meanwhile), flushed while the next one
/// downloads, committed, and only then released on the camera.
extension TetherSession {
    /// A complete, checked download not yet committed to the spool.
    struct Downloaded {
        var candidate: Candidate
        var incoming: IncomingPhoto
    }

    /// How long a spool write failure pauses downloads.
    static let spoolRetryDelay = 5.0

    var downloadReady: Bool {
        guard let first = downloads.first, now >= downloadsPausedUntil, now >= first.notBefore else { return false }
        return context.spool.hasRoom(forBytes: first.object.expectedBytes ?? 0)
    }

    var spoolHasRoom: Bool {
        guard let first = downloads.first else { return true }
        return context.spool.hasRoom(forBytes: first.object.expectedBytes ?? 0)
    }

    func download(_ candidate: Candidate) throws(PTPIPError) {
        let object = candidate.object
        let name = object.info.filename
        var identity = object.photoIdentity(cameraSerial: memory.serial, detectedAt: candidate.detectedAt)
        identity.timerShot = candidate.shot
        identity.selection.requested = candidate.requested
        identity.bracket = candidate.shot.flatMap { context.options.capture?.frameTag(ofShot: $0) }
        let id = identity.stableID
        if context.spool.contains(id: id) { return }
        let incoming: IncomingPhoto
        if let partial = memory.partials[id] {
            incoming = partial
        } else {
            do {
                incoming = try context.spool.beginIngest(identity)
            } catch {
                return pauseDownloads(candidate, because: error)
            }
            // The first bytes, read to identify the photo, are not asked for again.
            if let head = object.head {
                do {
                    try incoming.append(head)
                } catch {
                    context.spool.discard(incoming)
                    return pauseDownloads(candidate, because: error)
                }
            }
        }
        memory.partials[id] = incoming
        // An idle upload worker may start sending it now, alongside the download (cut-through).
        context.spool.offer(incoming)
        let resumedAt = incoming.byteCount
        if resumedAt > 0 {
            let total = object.expectedBytes.map { ByteCountText.format($0) } ?? "a size the camera does not give"
            context.report(.info("resuming \(name) at \(ByteCountText.format(resumedAt)) of \(total)"))
        }
        let transfer = ObjectDownload(
            session: session, object: object, incoming: incoming,
            chunkSize: context.options.chunkSize, operation: dialect.downloadOperation(session))
        do {
            let mismatches = try transfer.run { () throws(PTPIPError) in
                if context.stop.isStopped { throw .interrupted }
                try fireDueShot(betweenChunks: true)
                commitFlushed(wait: false)
            }
            if mismatches > 0 {
                context.report(
                    .info(
                        "\(session.name) misreported the byte count of \(mismatches) piece(s) of \(name); "
                            + "relay kept the bytes it received and checked the total size"))
            }
        } catch {
            context.spool.withdraw(incoming)
            switch error {
            case .camera(let error):
                if !transfer.resumable {
                    memory.partials[id] = nil
                    context.spool.discard(incoming)
                }
                if case .interrupted = error, session.client.isIdle {
                    // Stopping between two chunks: the session can still be closed cleanly.
                    downloads.insert(candidate, at: 0)
                    return
                }
                throw error
            case .refused(let operation, let response):
                return retryOrSetAside(candidate, refused: operation, response)
            case .spool(let error):
                memory.partials[id] = nil
                context.spool.discard(incoming)
                return pauseDownloads(candidate, because: error)
            }
        }
        memory.partials[id] = nil
        // With more to download, the disk flushes this photo while the next one downloads, and
        // it is committed between two chunks of that one. Not when a worker is uploading it or
        // its rendition is being decoded (their end waits for the commit), nor a capture held in camera memory (it waits for
        // its release).
        commitFlushed(wait: true)
        let downloaded = Downloaded(candidate: candidate, incoming: incoming)
        let moreToDownload = !downloads.isEmpty
        if moreToDownload && !object.needsTransferComplete && !dialect.reusesHandles && !context.spool.isReadWhileDownloading(incoming) {
            // No worker may claim it now and wait on a commit that is put off: it is queued then.
            context.spool.withdraw(incoming)
            incoming.flushInBackground()
            flushing = downloaded
            return
        }
        if commit(downloaded) { try release(object, downloaded: true) }
    }

    /// The camera refused the transfer of one object: a transient answer (GeneralError,
    /// DeviceBusy) is asked again for a few seconds, anything else sets the object aside. The
    /// bytes downloaded so far are kept for the next try.
    private func retryOrSetAside(_ candidate: Candidate, refused operation: PTPOperationCode, _ response: PTPResponseCode) {
        if dialect.switchDownload(afterRefusal: response) {
            downloads.insert(candidate, at: 0)
            return
        }
        var retry = candidate
        let first = candidate.firstRefusal ?? now
        if (response == .generalError || response == .deviceBusy) && now - first < Self.objectRetryBudget {
            retry.firstRefusal = first
            retry.notBefore = now + Self.objectRetryInterval
            downloads.append(retry)
            return
        }
        known[candidate.object.handle] = nil
        setAside(candidate.object.handle, because: "it answered \(operation) for \(candidate.object.info.filename) with \(response)")
    }

    /// Commits the photo whose flush runs in the background, if that has ended or `wait` is set.
    func commitFlushed(wait: Bool) {
        guard let downloaded = flushing, wait || downloaded.incoming.isFlushed else { return }
        flushing = nil
        commit(downloaded)
    }

    /// Commits a downloaded photo to the spool, recording it as taken; false when the spool could
    /// not take it (it stays on the card and downloads pause).
    @discardableResult
    func commit(_ downloaded: Downloaded) -> Bool {
        let object = downloaded.candidate.object
        let name = object.info.filename
        let entry: SpoolEntry
        var reported = false
        do {
            entry = try context.spool.commit(downloaded.incoming) { [memory, context] entry in
                do {
                    try memory.seen.record(object.seenKeys)
                } catch {
                    memory.unrecorded += object.seenKeys
                }
                // Said before the photo can be delivered, while its file is there for the pages'
                // pictures to open: a gallery that had it all as it downloaded may finish it, and
                // the spool remove it, within the commit.
                context.report.spooled(entry, in: context.spool)
                reported = true
            }
        } catch {
            pauseDownloads(downloaded.candidate, because: error)
            return false
        }
        if dialect.reusesHandles { known[object.handle] = nil }
        noteTaken(object, id: entry.id, selection: entry.selection)
        memory.announcedUnlisted[object.handle] = nil
        // A photo already in the spool (this download dropped) is said as before.
        if !reported { context.report.spooled(entry, in: context.spool) }
        return true
    }

    /// The spool could not take the photo (a full disk): it stays on the card, downloads pause.
    func pauseDownloads(_ candidate: Candidate, because error: SpoolError) {
        downloads.insert(candidate, at: 0)
        downloadsPausedUntil = now + Self.spoolRetryDelay
        context.report(.warning("\(candidate.object.info.filename) stays on the camera for now: \(error)"))
    }
}
