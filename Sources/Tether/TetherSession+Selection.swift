import Foundation
import PTPIP
import PTPWire
import PhotoMetadata
import RelayCore
import Spool

/// The photographer selecting in the camera after the shot (issue 41): a photo protected, rated
/// or sent with the body's transfer button. The camera says an object changed (ObjectInfoChanged,
/// Canon's ObjectInfoChangedEx or ObjectContentChanged); relay reads again only what it needs,
/// the object's info for its protection and, for a JPEG, the head of the file for its rating,
/// never the photo, and tells the spool, which releases or holds again its held legs.
extension TetherSession {
    /// A photo of this session that is (or was) in the spool, by the id it has there.
    struct TakenPhoto {
        var id: String
        var object: CameraObject
        var selection: PhotoSelection
    }

    /// Queues what the camera said changed, each object once (a transfer request kept).
    func noteChanged(_ news: [ObjectChange]) {
        for change in news {
            if let index = changes.firstIndex(where: { $0.handle == change.handle }) {
                changes[index].transferRequested = changes[index].transferRequested || change.transferRequested
                changes[index].awaitsTransferComplete = changes[index].awaitsTransferComplete || change.awaitsTransferComplete
            } else {
                changes.append(change)
            }
        }
    }

    /// A capture-transfer request (Canon RequestObjectTransfer) for a photo relay knows to be on
    /// the card (listed, or announced as added there) is the body's transfer button on it: a
    /// selection. One for anything else is a capture held in camera memory, taken as such.
    func transferRequests(in announcements: [ObjectAnnouncement]) -> [ObjectAnnouncement] {
        announcements.filter { announcement in
            guard announcement.needsTransferComplete, onCard.contains(announcement.handle) else { return true }
            noteChanged([ObjectChange(handle: announcement.handle, transferRequested: true, awaitsTransferComplete: true)])
            return false
        }
    }

    /// Reads what changed on one object and tells the spool. An object not downloaded yet is
    /// described again (its download takes the file as it is now); a transfer request for a
    /// photo not looked at yet, or left on the card (there before relay's first connection), has
    /// it taken; a photo this session did not take is otherwise left alone.
    func readChange(_ change: ObjectChange) throws(PTPIPError) {
        // Downloaded and flushing: committed first, so that the change applies to the spool's photo.
        if flushing?.candidate.object.handle == change.handle { commitFlushed(wait: true) }
        if let index = downloads.firstIndex(where: { $0.object.handle == change.handle }) {
            if change.transferRequested {
                downloads[index].requested = true
                // Released with TransferComplete once downloaded, as the body waits for.
                if change.awaitsTransferComplete { downloads[index].object.needsTransferComplete = true }
            }
            guard !downloads[index].object.namedByRelay,
                let object = try describe(ObjectAnnouncement(handle: change.handle), retryingUntil: nil)
            else { return }
            downloads[index].object.info = object.info
            return
        }
        if change.transferRequested && taken[change.handle] == nil {
            return try takeRequested(change)
        }
        guard var photo = taken[change.handle] else { return }
        var selection = photo.selection
        if change.transferRequested {
            selection.requested = true
            if change.awaitsTransferComplete { try completeTransfer(change.handle, downloaded: true) }
        }
        // A body that described the photo another way (a capture taken from camera memory, a
        // Nikon Z in "connect to computer" mode) may answer now that it is on the card.
        let reply = try session.call(.getObjectInfo, [change.handle], dataIn: .collect(limit: CameraSession.collectLimit))
        if reply.code == .invalidObjectHandle { return }
        if reply.code.isOK, let info = try? PTPObjectInfo(decoding: reply.data ?? []) {
            selection.protected = info.isProtected
            if !photo.object.namedByRelay { rememberChangedContent(of: &photo, info: info) }
        }
        if let listed = try dialect.isProtected(photo.object, session: session) { selection.protected = listed }
        if photo.object.info.photoKind == .jpeg || photo.object.namedByRelay, let head = try readHead(change.handle) {
            selection.rating = PhotoRating.read(head: head)
        }
        photo.selection = selection
        taken[change.handle] = photo
        select(photo)
    }

    /// A rated photo's file is rewritten on the card (its size changes): its new key goes into
    /// the seen log, so that the next connection's listing does not take it for a new photo.
    private func rememberChangedContent(of photo: inout TakenPhoto, info: PTPObjectInfo) {
        var changed = photo.object
        changed.info = info
        guard changed.identityKey != photo.object.identityKey else { return }
        photo.object.info = info
        do {
            try memory.seen.record(changed.identityKey, file: info.filename)
        } catch {
            memory.unrecorded.append((changed.identityKey, info.filename))
        }
    }

    /// The head of a photo on the card (``CameraSelection/head(_:)``); nil when the body will
    /// not give it.
    private func readHead(_ handle: UInt32) throws(PTPIPError) -> [UInt8]? {
        let operation = dialect.downloadOperation(session)
        guard operation.resumable else { return nil }
        return try CameraSelection.head { (offset, count) throws(PTPIPError) in
            let reply = try session.call(
                operation.code, operation.parameters(handle: handle, offset: offset, count: Int64(count)), dataIn: .collect(limit: count))
            return reply.code.isOK ? reply.data : nil
        }
    }

    private func select(_ photo: TakenPhoto) {
        context.select(photo.selection, photo: photo.id, fileName: photo.object.info.filename, camera: session.name)
    }

    /// Records a photo of this session that is in the spool under `id`.
    func noteTaken(_ object: CameraObject, id: String, selection: PhotoSelection) {
        guard !dialect.reusesHandles else { return }
        taken[object.handle] = TakenPhoto(id: id, object: object, selection: selection)
    }

    /// A photo taken before this session that is still in the spool: kept for its later
    /// changes, and a protection set or lifted while relay was away is told to the spool now.
    func noteTakenBefore(_ object: CameraObject) throws(PTPIPError) {
        let id = object.photoIdentity(cameraSerial: memory.serial, detectedAt: Date()).stableID
        guard let entry = context.spool.entry(id) else { return }
        var photo = TakenPhoto(id: id, object: object, selection: entry.selection)
        if !object.namedByRelay && photo.selection.protected != object.info.isProtected {
            photo.selection.protected = object.info.isProtected
            select(photo)
        }
        noteTaken(object, id: id, selection: photo.selection)
    }

    /// The transfer button on a photo this session has not taken: one not looked at yet, or
    /// left on the card as there before relay's first connection, is taken (selected); one
    /// relay decided against (RAW, taken before and gone from the spool) is only let go.
    private func takeRequested(_ change: ObjectChange) throws(PTPIPError) {
        let handle = change.handle
        switch known[handle] {
        case nil, .existing?:
            requested[handle] = change.awaitsTransferComplete
            known[handle] = nil
            announced.append(ObjectAnnouncement(handle: handle))
        default:
            if change.awaitsTransferComplete { try completeTransfer(handle, downloaded: false) }
        }
    }

    /// TransferComplete for a photo the body asked to be taken (it waits for it).
    private func completeTransfer(_ handle: UInt32, downloaded: Bool) throws(PTPIPError) {
        let object =
            taken[handle]?.object
            ?? CameraObject(handle: handle, info: PTPObjectInfo(storageID: 0, objectFormat: .exifJPEG, compressedSize: 0, filename: ""))
        var asked = object
        asked.needsTransferComplete = true
        try release(asked, downloaded: downloaded)
    }

    /// A photo relay took before whose file the body rewrote since (rated while relay was
    /// away: same card, name and capture date, another size). It is not taken again; its new
    /// identity is recorded as seen, and, while it is still in the spool, its marks are read.
    func noteRewritten(_ object: CameraObject) throws(PTPIPError) {
        do {
            try memory.seen.record(object.identityKey, file: object.info.filename)
        } catch {
            memory.unrecorded.append((object.identityKey, object.info.filename))
        }
        // The spool's photo is the one whose identity with its own size is this file's.
        let source = CameraObject.sourceLabel(serial: memory.serial)
        let found = context.spool.entries(from: source, named: object.info.filename).last { entry in
            var earlier = object
            earlier.info.compressedSize = UInt32(clamping: entry.bytes)
            return earlier.photoIdentity(cameraSerial: memory.serial, detectedAt: Date()).stableID == entry.id
        }
        guard let entry = found else { return }
        context.report(
            .info("\(object.info.filename) was rewritten on \(session.name) since relay took it (rated on the body): not taken again"))
        noteTaken(object, id: entry.id, selection: entry.selection)
        noteChanged([ObjectChange(handle: object.handle)])
    }
}
