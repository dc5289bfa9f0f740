import Foundation
import PTPIP
import PTPWire
import PhotoMetadata

/// What an object on the camera is: its ObjectInfo, or, for a body that will not give one, the
/// dialect's description and the identity the photo's own header carries.
extension TetherSession {
    /// The object as its ObjectInfo describes it, or as the dialect does when the camera refuses
    /// that (then `namedByRelay`); nil when the object is gone, retried later, or set aside.
    func describe(_ announcement: ObjectAnnouncement, retryingUntil: TimeInterval?) throws(PTPIPError) -> CameraObject? {
        let handle = announcement.handle
        let reply = try session.call(.getObjectInfo, [handle], dataIn: .collect(limit: CameraSession.collectLimit))
        switch reply.code {
        case .ok:
            do {
                return CameraObject(
                    handle: handle, info: try PTPObjectInfo(decoding: reply.data ?? []),
                    needsTransferComplete: announcement.needsTransferComplete)
            } catch {
                known[handle] = .skipOther
                context.report(
                    .warning(
                        "the camera's description of object \(String(handle, radix: 16)) is unreadable (\(error)); it is left on the card"))
                return nil
            }
        case .invalidObjectHandle:
            memory.announcedUnlisted[handle] = nil
            return nil
        case .generalError, .deviceBusy:
            // Nikon answers GeneralError for about a second after announcing a shot.
            let giveUpAt = retryingUntil ?? now + Self.objectRetryBudget
            guard now < giveUpAt else {
                setAside(
                    handle, because: "it answered \(PTPOperationCode.getObjectInfo) with \(reply.code) for \(Int(Self.objectRetryBudget)) s"
                )
                return nil
            }
            pendingDescriptions[handle] = PendingDescription(
                announcement: announcement, nextTry: now + Self.objectRetryInterval,
                giveUpAt: giveUpAt)
            return nil
        default:
            if let described = try dialect.describeWithoutObjectInfo(handle, refused: reply.code, session: session) {
                return CameraObject(
                    handle: handle, info: described.info, needsTransferComplete: announcement.needsTransferComplete, namedByRelay: true,
                    head: described.head)
            }
            setAside(handle, because: "it answered \(PTPOperationCode.getObjectInfo) with \(reply.code)")
            return nil
        }
    }

    /// Learns what a photo the body did not describe is from its header (``PhotoHeaderIdentity``),
    /// reading its first bytes where the dialect has not, and names it by its capture time. A
    /// body that will not give them leaves it known by relay's name from its handle, as said.
    func identify(_ object: inout CameraObject) throws(PTPIPError) {
        if object.head == nil {
            let operation = dialect.downloadOperation(session)
            let length = PhotoHeaderIdentity.readLength
            if operation.resumable {
                let reply = try session.call(
                    operation.code, operation.parameters(handle: object.handle, offset: 0, count: Int64(length)),
                    dataIn: .collect(limit: length))
                if reply.code.isOK { object.head = reply.data }
            }
        }
        guard let head = object.head, !head.isEmpty else {
            context.report(
                .warning(
                    "\(session.name) gave neither a description nor the first bytes of \(object.info.filename): it is known by "
                        + "its handle only, which the body may give another photo after a restart"))
            return
        }
        let header = PhotoHeaderIdentity(head: head)
        object.header = header
        let name = object.info.filename
        let dot = name.lastIndex(of: ".")
        let prefix = String(name[..<(name.firstIndex(of: "_") ?? dot ?? name.endIndex)])
        let fileExtension = dot.map { String(name[name.index(after: $0)...]) } ?? "JPG"
        if let named = header.fileName(prefix: prefix, fileExtension: fileExtension) { object.info.filename = named }
    }
}
