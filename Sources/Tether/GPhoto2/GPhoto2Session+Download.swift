import Foundation
import GPhoto2
import Intake
import RelayCore
import RunEvents
import Spool

/// The download of one photo: read in pieces with `gp_camera_file_read` straight into the
/// spool's staged ingest (an idle upload worker may send it meanwhile, as with PTP/IP), so no
/// whole photo is held in memory and a drop costs one piece; committed with its seen-log line.
extension GPhoto2Session {
    /// How long a spool write failure pauses downloads.
    static let spoolRetryDelay = 5.0

    func download(_ candidate: Candidate, info: GPhoto2FileInfo, key: String) throws {
        let path = candidate.path
        guard let size = info.size else {
            // A driver that reports no size: the file comes whole, then goes to the spool.
            return try downloadWhole(candidate, key: key)
        }
        var identity = PhotoIdentity(
            source: CameraObject.sourceLabel(serial: memory.serial), fileName: path.name, bytes: size,
            capturedAt: candidate.detectedAt, uniqueKey: key, timerShot: candidate.shot)
        identity.selection.protected = info.protected ?? false
        let id = identity.stableID
        if context.spool.contains(id: id) { return }
        let incoming: IncomingPhoto
        // libgphoto2 may give a file no time in the session that saw it appear and its time
        // after a reconnect, so the earlier partial of the same file is found by name and size.
        let partial =
            memory.partials.first { $0.key == id }
            ?? memory.partials.first { $0.value.identity.fileName == path.name && $0.value.identity.bytes == size }
        if let (partialID, resumed) = partial {
            memory.partials[partialID] = nil
            incoming = resumed
            context.report(.info("resuming \(path.name) at \(ByteCountText.format(resumed.byteCount)) of \(ByteCountText.format(size))"))
        } else {
            do { incoming = try context.spool.beginIngest(identity) } catch { return pause(candidate, because: error) }
        }
        memory.partials[id] = incoming
        context.spool.offer(incoming)
        do {
            while incoming.byteCount < size {
                if context.stop.isStopped {
                    throw GPhoto2Error(code: GPhoto2Result.cancel, operation: "download \(path.name)", detail: "relay is stopping")
                }
                let count = Int(min(Int64(context.options.chunkSize), size - incoming.byteCount))
                let bytes = try readPiece(path, offset: incoming.byteCount, count: count)
                guard !bytes.isEmpty else { break }
                try incoming.append(bytes)
                try fireDueShot()
            }
            guard incoming.byteCount == size else {
                throw GPhoto2Error(
                    code: GPhoto2Result.io, operation: "download \(path.name)",
                    detail: "the camera sent \(incoming.byteCount) of \(size) bytes")
            }
        } catch let error as SpoolError {
            context.spool.withdraw(incoming)
            memory.partials[id] = nil
            context.spool.discard(incoming)
            return pause(candidate, because: error)
        } catch {
            // The camera failed: the bytes so far stay for the next session, which resumes them.
            context.spool.withdraw(incoming)
            known.remove(path)
            throw error
        }
        memory.partials[id] = nil
        commit(incoming, candidate: candidate, key: key)
    }

    /// The next piece of the file. A file the driver cannot read at an offset comes whole at
    /// offset 0: a driver without partial reads, or a capture to the camera's memory, which the
    /// ptp2 driver takes out of the camera (and releases there) while it reports the event, and
    /// keeps under `/` rather than a `/store_…` folder (camlibs/ptp2/library.c, camera_wait_for_event).
    private func readPiece(_ path: GPhoto2FilePath, offset: Int64, count: Int) throws(GPhoto2Error) -> [UInt8] {
        do {
            return try camera.read(path, offset: offset, count: count)
        } catch {
            guard offset == 0, [.notSupported, .fileGone, .other].contains(error.kind) else { throw error }
            return try camera.download(path)
        }
    }

    /// Downloads a file whose size the driver does not report in one piece, then spools it.
    private func downloadWhole(_ candidate: Candidate, key: String) throws {
        let bytes = try camera.download(candidate.path)
        let identity = PhotoIdentity(
            source: CameraObject.sourceLabel(serial: memory.serial), fileName: candidate.path.name,
            bytes: Int64(bytes.count), capturedAt: candidate.detectedAt, uniqueKey: key, timerShot: candidate.shot)
        if context.spool.contains(id: identity.stableID) { return }
        let incoming: IncomingPhoto
        do throws(SpoolError) {
            incoming = try context.spool.beginIngest(identity)
            do throws(SpoolError) { try incoming.append(bytes) } catch {
                context.spool.discard(incoming)
                throw error
            }
        } catch {
            return pause(candidate, because: error)
        }
        commit(incoming, candidate: candidate, key: key)
    }

    /// Commits a complete photo to the spool, recording it as taken in the same step.
    private func commit(_ incoming: IncomingPhoto, candidate: Candidate, key: String) {
        let name = candidate.path.name
        do {
            let entry = try context.spool.commit(incoming) { [memory] _ in
                do { try memory.seen.record(key, file: name) } catch { memory.unrecorded.append((key, name)) }
            }
            context.report.spooled(entry, in: context.spool)
            taken[candidate.path] = TakenFile(id: entry.id, selection: entry.selection)
        } catch {
            pause(candidate, because: error)
        }
    }

    /// The spool could not take the photo (a full disk): it stays on the camera, downloads pause.
    private func pause(_ candidate: Candidate, because error: SpoolError) {
        known.remove(candidate.path)
        queue.insert(candidate, at: 0)
        downloadsPausedUntil = now + Self.spoolRetryDelay
        context.report(.warning("\(candidate.path.name) stays on the camera for now: \(error)"))
    }
}
