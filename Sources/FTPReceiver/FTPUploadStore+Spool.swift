import FTPWire
import Foundation
import Intake
import PhotoMetadata
import RelayCore
import Spool

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A finished upload into the spool: complete by its structure, not a repeat of a photo received
/// before (by content), committed before the camera is told 226.
extension FTPUploadStore {
    /// The identity of one upload of `path` as a photo: one of its own for each STOR, since
    /// whether it repeats an earlier photo is known only from its content, at its end.
    func identity(user: String, path: FTPVirtualPath, fileName: String) -> PhotoIdentity {
        var identity = PhotoIdentity(
            source: "ftp:\(user)", fileName: fileName, bytes: 0, capturedAt: Date(),
            uniqueKey: "\(user)|\(path)|\(UUID().uuidString)")
        identity.photographer = user
        return identity
    }

    /// Commits the complete upload of `path` (`incoming`, adopted from its partial file) to the
    /// spool. A JPEG must be whole (``ContentDigest/Content/isWholeJPEG``: its primary image ends,
    /// whatever follows), and a RAW must not be cut by its structure (``RAWStructure``), or it is
    /// kept as a partial upload; a repeat of a photo received before (same account, name and
    /// content) is dropped. Whatever is not committed is withdrawn from an upload sending it.
    /// `content` is the upload's digest when it was made as the bytes arrived (else it is read now).
    func finish(user: String, path: FTPVirtualPath, incoming: IncomingPhoto, content: ContentDigest.Content?, kind: FTPFileKind) -> Outcome
    {
        let outcome = commit(user: user, path: path, incoming: incoming, content: content, kind: kind)
        if case .spooled = outcome {
        } else {
            spool.letGo(incoming)
        }
        return outcome
    }

    private func commit(
        user: String, path: FTPVirtualPath, incoming: IncomingPhoto, content given: ContentDigest.Content?,
        kind: FTPFileKind
    ) -> Outcome {
        let url = partialURL(user: user, path: path)
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failed(.io(path: url.path, reason: Errno.current("open").description)) }
        defer { close(fd) }
        guard let content = given ?? ContentDigest.sha256(of: fd) else {
            return .failed(.io(path: url.path, reason: Errno.current("read").description))
        }
        if kind == .jpeg && !content.isWholeJPEG { return .incomplete("its JPEG image is cut short") }
        if kind == .raw && ReceivedRAW.verdict(fd, bytes: content.bytes) == .incomplete {
            return .incomplete("its RAW data is cut short: the file points past its end")
        }
        let key = "\(user)|\(path)|\(content.bytes)|\(content.hex)"
        // The spool is asked too: relay may have died after spooling it, before remembering it.
        let inSeenLog = seen.contains(key)
        if inSeenLog || spool.contains(contentKey: key) {
            discardPartial(user: user, path: path)
            remember(user: user, path: path, bytes: content.bytes)
            return .duplicate(
                matched: "\(user)'s \(path), \(content.bytes) bytes, SHA-256 \(content.hex.prefix(12))…, "
                    + (inSeenLog ? "in the FTP seen log" : "still in the spool"))
        }
        guard spool.hasRoom(forBytes: content.bytes) else { return .spoolFull }
        // Another photo came under this name before (a camera whose numbering started again, a
        // second card): it is sent under a name of its own, made from its content (the same for
        // every retry), so that the destination does not replace the earlier one.
        if seen.containsFile(Self.seenFile(user, path.description)) {
            spool.renameIncoming(incoming, toFileName: SafeFileName.withSuffix(incoming.identity.fileName, String(content.hex.prefix(8))))
        }
        spool.setContentKey(key, of: incoming)
        let entry: SpoolEntry
        do {
            entry = try spool.commit(incoming, committed: { _ in try? seen.record(key, file: Self.seenFile(user, path.description)) })
        } catch {
            return .failed(error)
        }
        discardPartial(user: user, path: path)
        remember(user: user, path: path, bytes: content.bytes)
        return .spooled(entry)
    }

    /// What the structure of the RAW upload of `path` says, as it is on disk now.
    func rawVerdict(user: String, path: FTPVirtualPath) -> RAWStructure.Verdict {
        ReceivedRAW.verdict(path: partialURL(user: user, path: path).path)
    }
}
