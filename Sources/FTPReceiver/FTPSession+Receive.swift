import FTPWire
import Foundation
import Intake
import RelayCore
import RunEvents
import SocketIO
import Spool

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// STOR and APPE: the upload streams into a partial file and is spooled, fsynced, before 226.
extension FTPSession {
    /// How the bytes of one upload stopped coming.
    enum TransferEnd {
        /// The client closed the data connection with its control connection still open.
        case complete
        /// Reset, or the control connection closed too (a client that died also closes its
        /// data connection, which then looks like the end of the file).
        case clientGone
        case aborted
        case timedOut
        case tooBig
        /// More than ``maxHeldLines`` commands came during the transfer.
        case flooded
        case writeFailed(Errno)
        /// A newer upload of the same file (the camera's retry) cut this one.
        case cutForRetry
        /// The spool's photos and the uploads kept for a resume leave no room for this one.
        case noRoom
    }

    /// Bytes written between two checks that an upload still fits (``FTPUploadStore/makeRoom``).
    static let roomCheckBytes: Int64 = 1 << 20

    func receive(_ path: FTPVirtualPath, append: Bool) -> FTPReply {
        // A refused upload consumes the prepared data connection too: no listener stays open.
        defer { dropDataChannel() }
        let offset = restartOffset
        restartOffset = nil
        let user = userName
        let kind = FTPFileKind(fileName: path.name)
        guard !path.components.isEmpty else { return FTPReply(553, "give a file name") }
        guard kind != .other else {
            log("refused \(path): not a photo or video name")
            return FTPReply(553, "relay takes only photos and videos (JPEG, RAW, MOV/MP4): \(path.name) refused")
        }
        // A temporary name is kept until the rename says what it is (``renamed(from:to:)``).
        let keep = kind == .jpeg || kind == .temporary || (kind == .raw && context.options.includeRAW)
        guard dataChannel != nil else { return FTPReply(425, "send PASV, EPSV, PORT or EPRT first") }
        if let refusal = clearDataRefusal { return refusal }
        if keep && !context.spool.hasRoom(forBytes: 1) {
            log("spool full: asked the camera to send \(path.name) again later")
            return FTPReply(452, "relay's spool is full while the gallery catches up: send \(path.name) again in a minute")
        }
        guard let claim = context.store.claimUpload(user: user, path: path, cut: { [self] in cutForRetry() }) else {
            return FTPReply(450, "\(path.name) is being uploaded on another connection")
        }
        defer { context.store.release(user: user, path: path) }
        if case .tookOver = claim {
            log("\(path.name) was being received on a connection that went silent: that upload was cut off; the camera's retry takes over")
        }
        guard let data = openDataConnection() else { return FTPReply(425, "cannot open the data connection") }
        setOpenData(data)
        defer {
            setOpenData(nil)
            data.close()
        }
        guard keep else { return skip(path, kind: kind, data: data) }
        // The partial file is opened before the 150, so a REST beyond what relay has is
        // refused before any byte moves; TLS follows the 150.

        let opened: (fd: Int32, start: Int64)
        do {
            opened = try context.store.openPartial(user: user, path: path, offset: append ? Int64.max : offset)
        } catch {
            switch error {
            case .beyondEnd(let have):
                return FTPReply(554, "relay has \(have) bytes of \(path.name): resume from there (SIZE tells), or send it whole")
            case .io(let reason):
                return FTPReply(451, "cannot write \(path.name): \(reason)")
            }
        }
        let from = opened.start > 0 ? " from byte \(opened.start)" : ""
        if kind != .temporary { context.report(.announced(fileName: path.name, bytes: nil)) }
        // The upload becomes an incoming photo of the spool at once, so that a destination can
        // send it while it arrives (cut-through); its last byte goes only after the commit.
        // A file under a temporary name is no photo yet: it is only written, and is committed
        // (read again) when it is renamed to a photo's name.
        let incoming =
            kind == .temporary
            ? nil
            : context.spool.adopt(
                context.store.identity(user: user, path: path, fileName: fileName(path)),
                url: context.store.partialURL(user: user, path: path), descriptor: opened.fd)
        guard reply(FTPReply(150, "receiving \(path.name)\(from)")), secure(data) else {
            if let incoming { context.spool.letGo(incoming) } else { close(opened.fd) }
            return FTPReply(426, "no data connection (client gone, or its TLS handshake failed)")
        }
        if let incoming { context.spool.offer(incoming) }
        // Digested as it arrives, when it arrives whole (a resume is read again at its end).
        let digest = opened.start == 0 && incoming != nil ? ContentDigest() : nil
        let wrote: ([UInt8], Int64) -> Void = { chunk, total in
            chunk.withUnsafeBytes { digest?.feed($0) }
            incoming?.wrote(upTo: total)
        }
        let (end, total) = pump(from: data, into: opened.fd, start: opened.start, wrote: wrote) { [self] bytes in
            let room = context.store.makeRoom(user: user, path: path, bytes: bytes)
            for dropped in room.dropped {
                log("dropped the cut-off upload of \(Self.printable(dropped)) to make room for \(path.name) (--spool-max-bytes)")
            }
            return room.fits
        }
        guard let incoming else {
            close(opened.fd)
            if case .complete = end {
                log("\(path.name) received (\(total) bytes) under a temporary name: it is committed when it is renamed to a photo's name")
                return FTPReply(226, "\(path.name) received; rename it to the photo's name to hand it over")
            }
            return interrupted(path, end: end, at: total)
        }
        guard case .complete = end else {
            // Anything but a clean end leaves the partial file for a resume (or drops it), never the spool.
            context.spool.letGo(incoming)
            return interrupted(path, end: end, at: total)
        }
        return received(path, incoming: incoming, digest: digest, bytes: total, kind: kind)
    }

    /// The answer to an upload that did not end cleanly (`.complete` counts as the client gone: it
    /// is never passed); what arrived stays for a resume unless it cannot be kept.
    private func interrupted(_ path: FTPVirtualPath, end: TransferEnd, at total: Int64) -> FTPReply {
        let user = userName
        switch end {
        case .cutForRetry:
            log("\(path.name) was cut off at \(total) bytes; the camera's retry takes over")
            quitting = true
            return FTPReply(426, "a newer upload of \(path.name) took over")
        case .noRoom:
            context.store.discardPartial(user: user, path: path)
            let limit = ByteCountText.format(context.spool.limits.maxBytes)
            log(
                "\(path.name) refused at \(total) bytes: with the spool's photos and the uploads kept for a resume it does not fit in "
                    + "\(limit) (--spool-max-bytes); nothing of it is kept, the camera is asked to send it again")
            return FTPReply(452, "relay's spool is full (\(limit)) while the gallery catches up: send \(path.name) again in a minute")
        case .clientGone, .complete:
            log("\(path.name) cut off at \(total) bytes: kept for a resume (REST or APPE)")
            return FTPReply(426, "the upload was cut off at \(total) bytes; resume it with REST \(total)")
        case .aborted:
            log("\(path.name) aborted at \(total) bytes: kept for a resume")
            reply(FTPReply(426, "upload aborted at \(total) bytes"))
            return FTPReply(226, "abort done")
        case .flooded:
            return floodedReply(path, at: total)
        case .timedOut:
            log("\(path.name): no data for \(Int(context.options.idleSeconds)) s, cut off at \(total) bytes; kept for a resume")
            return FTPReply(426, "no data for \(Int(context.options.idleSeconds)) s; resume with REST \(total)")
        case .tooBig:
            context.store.discardPartial(user: user, path: path)
            log("\(path.name) refused: larger than \(ByteCountText.format(context.options.maxFileBytes))")
            return FTPReply(552, "\(path.name) is larger than relay's limit of \(ByteCountText.format(context.options.maxFileBytes))")
        case .writeFailed(let failure):
            log("\(path.name) could not be written: \(failure)")
            if failure.isDiskFull { return FTPReply(452, "relay's disk is full: send \(path.name) again later") }
            return FTPReply(451, "relay could not write \(path.name): \(failure)")
        }
    }

    /// The name the gallery gets: the camera's, after its account when several cameras upload.
    func fileName(_ path: FTPVirtualPath) -> String {
        context.multipleUsers ? "\(userName)_\(path.name)" : path.name
    }

    /// An upload whose data connection ended cleanly. A RAW relay cannot check is taken only if
    /// no ABOR follows: a client that closed its data connection and then aborted (or left) did
    /// not send it whole.
    private func received(
        _ path: FTPVirtualPath, incoming: IncomingPhoto, digest: ContentDigest?, bytes: Int64,
        kind: FTPFileKind
    ) -> FTPReply {
        if kind == .raw, context.store.rawVerdict(user: userName, path: path) == .unreadable, let aborted = abortedRightAfterData() {
            context.spool.letGo(incoming)
            log("\(path.name) ended at \(bytes) bytes and was then \(aborted ? "aborted" : "dropped"): kept for a resume")
            guard aborted else { return FTPReply(426, "the upload was cut off at \(bytes) bytes") }
            reply(FTPReply(426, "upload aborted at \(bytes) bytes"))
            return FTPReply(226, "abort done")
        }
        return spool(path, incoming: incoming, content: digest?.bytes == bytes ? digest?.finish() : nil, bytes: bytes, kind: kind)
    }

    /// A complete upload into the spool; 226 only once it is there (or was already). `content`:
    /// its digest, when it was made as it arrived.
    func spool(
        _ path: FTPVirtualPath, incoming: IncomingPhoto, content: ContentDigest.Content?, bytes: Int64,
        kind: FTPFileKind
    ) -> FTPReply {
        switch context.store.finish(user: userName, path: path, incoming: incoming, content: content, kind: kind) {
        case .spooled(let entry):
            context.report.spooled(entry, in: context.spool)
            return FTPReply(226, "\(path.name) is safe in relay's spool (\(bytes) bytes)")
        case .duplicate(let matched):
            context.report(.alreadyTaken(AlreadyTaken(fileName: path.name, matched: matched, atStart: false)))
            return FTPReply(226, "\(path.name) was received before; not sent twice")
        case .incomplete(let what):
            log("\(path.name) is cut short at \(bytes) bytes (\(what)): kept for a resume, not spooled")
            return FTPReply(451, "\(path.name) is incomplete (\(what)): resume with REST \(bytes) or send it again")
        case .spoolFull:
            log("spool full: \(path.name) kept; the camera is asked to send it again")
            return FTPReply(452, "relay's spool is full while the gallery catches up: send \(path.name) again in a minute")
        case .failed(let error):
            log("\(path.name) could not be spooled: \(error)")
            if case .diskFull = error { return FTPReply(452, "relay's disk is full: send \(path.name) again later") }
            return FTPReply(451, "relay could not spool \(path.name): \(error)")
        }
    }

    /// A RAW or video file relay does not keep: received and dropped, answered 226.
    private func skip(_ path: FTPVirtualPath, kind: FTPFileKind, data: FTPStream) -> FTPReply {
        guard reply(FTPReply(150, "receiving \(path.name)")), secure(data) else { return FTPReply(426, "no data connection") }
        let (end, total) = pump(from: data, into: nil, start: 0)
        if case .flooded = end { return floodedReply(path, at: total) }
        if case .cutForRetry = end {
            quitting = true
            return FTPReply(426, "a newer upload of \(path.name) took over")
        }
        guard case .complete = end else { return FTPReply(426, "the upload was cut off") }
        context.store.remember(user: userName, path: path, bytes: total)
        context.report(.skipped(fileName: path.name, reason: kind == .raw ? "RAW (relay run --include-raw takes them)" : "a video"))
        return FTPReply(226, "\(path.name) received; relay uploads JPEGs only, so it is skipped")
    }

    /// Moves the data connection's bytes into `fd` (or nowhere) until it ends, watching the
    /// control connection for ABOR and for the client going away. The size limit guards the
    /// disk, so it applies only to bytes written: a skipped video of any size is drained and
    /// answered 226, or the camera would send it again and again.
    /// `fits` is asked, every ``roomCheckBytes`` written, whether the upload still fits.
    /// `wrote` hears each chunk written and the size written so far.
    private func pump(
        from data: FTPStream, into fd: Int32?, start: Int64, wrote: ([UInt8], Int64) -> Void = { _, _ in },
        fits: (Int64) -> Bool = { _ in true }
    ) -> (TransferEnd, Int64) {
        let (end, total) = transfer(from: data, into: fd, start: start, wrote: wrote, fits: fits)
        // Cut for a retry, the connections end as if the client had closed them: the end must
        // not pass for a complete file.
        return (wasCutForRetry ? .cutForRetry : end, total)
    }

    private func transfer(
        from data: FTPStream, into fd: Int32?, start: Int64, wrote: ([UInt8], Int64) -> Void,
        fits: (Int64) -> Bool
    ) -> (TransferEnd, Int64) {
        var total = start
        var nextRoomCheck = start
        let idle = context.options.idleSeconds
        // Once the control connection has ended, the client is gone, but what it sent before
        // dying is still read to the data connection's end: all of it counts for a resume.
        var controlEnded = false
        while true {
            let ready: [Bool]
            do { ready = try FTPStream.waitReadable(controlEnded ? [data] : [data, control], timeout: idle) } catch {
                return (.clientGone, total)
            }
            if !ready.contains(true) { return (.timedOut, total) }
            if ready.count > 1, ready[1], let end = readControlDuringTransfer() {
                switch end {
                case .aborted, .flooded: return (end, total)
                default: controlEnded = true
                }
            }
            guard ready[0] else { continue }
            let chunk: [UInt8]
            do { chunk = try data.readSome(maxCount: 1 << 20, timeout: idle) } catch { return (.clientGone, total) }
            if chunk.isEmpty {
                if !controlEnded, (try? FTPStream.waitReadable([control], timeout: 0))?.first == true, let end = readControlDuringTransfer()
                {
                    if case .flooded = end { return (end, total) }
                    controlEnded = true
                }
                return (controlEnded ? .clientGone : .complete, total)
            }
            if let fd {
                if total + Int64(chunk.count) > context.options.maxFileBytes { return (.tooBig, total) }
                if total + Int64(chunk.count) >= nextRoomCheck {
                    guard fits(total + Int64(chunk.count)) else { return (.noRoom, total) }
                    nextRoomCheck = total + Int64(chunk.count) + Self.roomCheckBytes
                }
                do { try AtomicFile.writeAll(fd, chunk) } catch { return (.writeFailed(error), total) }
                wrote(chunk, total + Int64(chunk.count))
            }
            total += Int64(chunk.count)
        }
    }

    /// How long a clean end of a RAW that relay cannot check waits for an ABOR that follows it.
    static let abortGrace: TimeInterval = 0.5

    /// Whether an ABOR (true) or the client leaving (false) follows the data connection's clean
    /// end within ``abortGrace``; nil when the control connection stays quiet or the client moves
    /// on to another command.
    private func abortedRightAfterData() -> Bool? {
        guard (try? FTPStream.waitReadable([control], timeout: Self.abortGrace))?.first == true else { return nil }
        switch readControlDuringTransfer() {
        case .aborted?: return true
        case .clientGone?: return false
        default: return nil
        }
    }

    /// Commands held during a transfer before the session is closed: a client sends a NOOP or
    /// two while it uploads, never dozens, and each held line takes memory until the end.
    static let maxHeldLines = 32

    /// A client that kept sending commands during a transfer is let go (what arrived of the
    /// upload is kept for a resume).
    private func floodedReply(_ path: FTPVirtualPath, at total: Int64) -> FTPReply {
        log("more than \(Self.maxHeldLines) commands during the upload of \(path.name): closing the connection (\(total) bytes kept)")
        quitting = true
        return FTPReply(421, "more than \(Self.maxHeldLines) commands during a transfer: closing the connection")
    }

    /// Reads what the control connection has during a transfer: ABOR ends it, the end of the
    /// stream means the client is gone, other commands wait for the transfer's end (up to
    /// ``maxHeldLines`` of them).
    private func readControlDuringTransfer() -> TransferEnd? {
        guard let bytes = try? control.readSome(maxCount: 4096, timeout: 1), !bytes.isEmpty else { return .clientGone }
        reader.append(bytes)
        do {
            while let line = try reader.nextLine() {
                if case .abor = try? FTPCommand(parsing: line) { return .aborted }
                guard pendingLines.count < Self.maxHeldLines else { return .flooded }
                pendingLines.append(line)
            }
            return nil
        } catch {
            return .clientGone
        }
    }
}
