import FTPWire
import Foundation
import RelayCore
import Spool

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// RNFR/RNTO: a rename of a partial upload or of a received file's record, and the rename that
/// hands over a file an FTP client stored under a temporary name.
extension FTPSession {
    /// The answer to `RNFR from` then `RNTO path`.
    func rename(_ from: FTPVirtualPath, to path: FTPVirtualPath) -> FTPReply {
        switch context.store.rename(user: userName, from: from, to: path) {
        case .renamed(partial: true) where FTPFileKind.isTemporaryName(from.name):
            guard context.store.claim(user: userName, path: path) else {
                return FTPReply(450, "\(path.name) is being uploaded on another connection: try again when it is done")
            }
            defer { context.store.release(user: userName, path: path) }
            return renamedTemporary(to: path)
        case .renamed: return FTPReply(250, "renamed")
        case .busy:
            return FTPReply(450, "\(from.name) or \(path.name) is being uploaded on another connection: try again when it is done")
        case .failed: return FTPReply(550, "cannot rename")
        }
    }

    /// RNTO of a file received under a temporary name to a photo's name: the client's way of
    /// saying the upload is complete. The file is committed to the spool as if it had been stored
    /// under that name (250 only once it is there), a RAW or video relay does not keep is dropped
    /// as skipped, and a name that is no photo's is refused and the file dropped.
    private func renamedTemporary(to path: FTPVirtualPath) -> FTPReply {
        let kind = FTPFileKind(fileName: path.name)
        let user = userName
        switch kind {
        case .jpeg,
            .raw where context.options.includeRAW:
            let url = context.store.partialURL(user: user, path: path)
            let fd = open(url.path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { return FTPReply(451, "relay could not open \(path.name) again: \(Errno.current("open"))") }
            var info = stat()
            fstat(fd, &info)
            let incoming = context.spool.adopt(
                context.store.identity(user: user, path: path, fileName: fileName(path)), url: url, descriptor: fd)
            let answer = spool(path, incoming: incoming, content: nil, bytes: Int64(info.st_size), kind: kind)
            return answer.code == 226 ? FTPReply(250, "renamed: " + answer.lines.joined(separator: " ")) : answer
        case .raw, .video:
            let bytes = context.store.info(user: user, path: path)?.bytes ?? 0
            context.store.discardPartial(user: user, path: path)
            context.store.remember(user: user, path: path, bytes: bytes)
            context.report(.skipped(fileName: path.name, reason: kind == .raw ? "RAW (relay run --include-raw takes them)" : "a video"))
            return FTPReply(250, "renamed; relay uploads JPEGs only, so \(path.name) is skipped")
        case .temporary:
            return FTPReply(250, "renamed (still a temporary name: rename it to the photo's name to hand it over)")
        case .other:
            context.store.discardPartial(user: user, path: path)
            log("refused the rename to \(path): not a photo or video name; the upload is dropped")
            return FTPReply(553, "relay takes only photos and videos (JPEG, RAW, MOV/MP4): \(path.name) refused")
        }
    }
}
