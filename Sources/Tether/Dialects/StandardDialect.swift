import PTPIP
import PTPWire

/// Standard PTP/IP cameras push ObjectAdded on the event channel, and ObjectInfoChanged
/// (0x4007) when a shot is protected or rated on the body (libgphoto2 `library.c` reads the
/// file's info again on it): waiting is all there is.
struct StandardDialect: CameraDialect {
    static func recognises(_ info: PTPDeviceInfo) -> Bool { true }

    var description: String { "standard PTP events" }

    mutating func start(_ session: CameraSession) throws(PTPIPError) -> [ObjectAnnouncement] { [] }

    mutating func poll(_ session: CameraSession, wait: Double) throws(PTPIPError) -> CameraNews {
        try pushedEvents(session, wait: wait)
    }
}
