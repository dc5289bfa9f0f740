import PTPIP
import PTPWire

/// Standard PTP/IP cameras push ObjectAdded on the event channel: waiting is all there is.
struct StandardDialect: CameraDialect {
    static func recognises(_ info: PTPDeviceInfo) -> Bool { true }

    var description: String { "standard PTP events" }

    mutating func start(_ session: CameraSession) throws(PTPIPError) -> [ObjectAnnouncement] { [] }

    mutating func poll(_ session: CameraSession, wait: Double) throws(PTPIPError) -> [ObjectAnnouncement] {
        try pushedObjects(session, wait: wait)
    }
}
