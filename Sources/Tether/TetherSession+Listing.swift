import PTPIP
import PTPWire

/// Listing a tether session's camera: at the start (what is on the card), then every
/// `crossCheckInterval`, which catches a missed event and retries what was set aside.
extension TetherSession {
    /// Every object handle on the camera's storages; nil when the camera cannot list them (then
    /// relay relies on its events alone).
    func list() throws(PTPIPError) -> [UInt32]? {
        guard listingWorks else { return nil }
        lastListing = now
        guard let storageOperation = dialect.storageListing(session) else {
            listingWorks = false
            context.report(
                .info(
                    "\(session.name) does not let its card be listed in this mode; relay relies on its events alone "
                        + "(a photo shot while relay is not connected is not announced to it and stays on the card)"))
            return nil
        }
        let storages = try session.call(storageOperation, dataIn: .collect(limit: CameraSession.collectLimit))
        guard storages.code.isOK else {
            listingWorks = false
            context.report(.info("\(session.name) does not list its files (\(storages.code)); relay relies on its events alone"))
            return nil
        }
        var handles: [UInt32] = []
        for storage in try decodeArray(storages.data, what: "storage list") {
            let reply = try session.call(.getObjectHandles, [storage, 0, 0], dataIn: .collect(limit: CameraSession.collectLimit))
            // A card slot that is empty or not ready answers an error; the other slots still count.
            guard reply.code.isOK else { continue }
            handles += try decodeArray(reply.data, what: "object list")
        }
        return handles
    }

    /// Lists the camera again and queues what no event announced (a missed event) and what was
    /// set aside. A body that cannot be listed gets what was set aside asked again.
    func crossCheck() throws(PTPIPError) {
        let retry = setAside
        setAside.removeAll()
        guard let handles = try list() else {
            lastListing = now
            backlog += retry.sorted().filter { known[$0] == nil }
            return
        }
        let present = Set(handles)
        onCard.formUnion(present)
        known = known.filter { present.contains($0.key) }
        let queued = Set(backlog)
        backlog += handles.filter { known[$0] == nil && !queued.contains($0) && pendingDescriptions[$0] == nil }
    }

    private func decodeArray(_ data: [UInt8]?, what: String) throws(PTPIPError) -> [UInt32] {
        var reader = PTPDataReader(data ?? [])
        do {
            return try reader.readArrayU32()
        } catch {
            throw .protocolViolation(peer: session.address, detail: "unreadable \(what): \(error)")
        }
    }
}
