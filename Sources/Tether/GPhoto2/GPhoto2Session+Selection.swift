import Foundation
import GPhoto2
import PhotoMetadata
import RelayCore
import Spool

/// The photographer selecting on the body, through libgphoto2 (issue 41): the ptp2 driver
/// reports ObjectInfoChanged as GP_EVENT_FILE_CHANGED after reading the file's info again
/// (camlibs/ptp2/library.c), and gives a protected file no delete permission. Relay reads the
/// file's info and the head of the file again, never the photo.
extension GPhoto2Session {
    /// A photo of this session in the spool, by the id it has there.
    struct TakenFile {
        var id: String
        var selection: PhotoSelection
    }

    /// Reads what changed on `path` and tells the spool.
    func readChange(_ path: GPhoto2FilePath) throws {
        guard var photo = taken[path] else { return }
        let info: GPhoto2FileInfo
        do {
            info = try camera.info(path)
        } catch {
            if error.kind == .fileGone { return }
            throw error
        }
        if let protected = info.protected { photo.selection.protected = protected }
        // A rated file is rewritten (another size): the next listing must not take it for new.
        let key = Self.identityKey(path, info)
        if !memory.wasSeen(key) {
            do { try memory.seen.record(key, file: path.name) } catch { memory.unrecorded.append((key, path.name)) }
        }
        if Self.kind(of: path.name, mimeType: info.mimeType) == .jpeg {
            let head = try CameraSelection.head { (offset, count) throws(GPhoto2Error) in
                try camera.read(path, offset: offset, count: count)
            }
            if let head { photo.selection.rating = PhotoRating.read(head: head) }
        }
        taken[path] = photo
        context.select(photo.selection, photo: photo.id, fileName: path.name, camera: camera.name)
    }

    /// A photo taken before this session that is still in the spool: kept for its later
    /// changes, and a protection set or lifted while relay was away is told to the spool now.
    func noteTakenBefore(_ path: GPhoto2FilePath, info: GPhoto2FileInfo) {
        let source = CameraObject.sourceLabel(serial: memory.serial)
        for key in Self.identityKeys(path, info) where memory.wasSeen(key) {
            let id = PhotoIdentity(source: source, fileName: path.name, bytes: 0, capturedAt: Date(), uniqueKey: key).stableID
            guard let entry = context.spool.entry(id) else { continue }
            var photo = TakenFile(id: id, selection: entry.selection)
            if let protected = info.protected, protected != photo.selection.protected {
                photo.selection.protected = protected
                context.select(photo.selection, photo: id, fileName: path.name, camera: camera.name)
            }
            taken[path] = photo
            return
        }
    }
}
