import PTPIP
import PTPWire

/// A new object a camera told relay about.
struct ObjectAnnouncement: Equatable, Sendable {
    var handle: UInt32
    /// Canon RequestObjectTransfer: the camera waits for TransferComplete after the download.
    var needsTransferComplete = false
}

/// How one dialect learns of new photos: its start-up after OpenSession, its poll (or wait for
/// pushed events), and its part of a clean stop.
protocol CameraEventSource {
    /// Start-up; returns what the camera announced during it.
    mutating func start(_ session: CameraSession) throws(PTPIPError) -> [ObjectAnnouncement]
    /// Waits at most `wait` seconds (a polling dialect waits its own, shorter interval) and
    /// returns the objects announced meanwhile.
    mutating func poll(_ session: CameraSession, wait: Double) throws(PTPIPError) -> [ObjectAnnouncement]
    /// The dialect's part of a clean stop, before CloseSession; each operation within `timeout`.
    func stop(_ session: CameraSession, timeout: Double) throws(PTPIPError)
}

extension CameraEventSource {
    /// ObjectAdded events pushed on the event channel (standard cameras, and any body that
    /// pushes them besides its own event list), waiting up to `wait`; probes are answered.
    func pushedObjects(_ session: CameraSession, wait: Double) throws(PTPIPError) -> [ObjectAnnouncement] {
        try session.client.events(timeout: wait).compactMap { event in
            guard event.code == .objectAdded, let handle = event.parameters.first else { return nil }
            return ObjectAnnouncement(handle: handle)
        }
    }
}

/// Standard PTP/IP cameras push ObjectAdded on the event channel: waiting is all there is.
struct StandardEventSource: CameraEventSource {
    func start(_ session: CameraSession) throws(PTPIPError) -> [ObjectAnnouncement] { [] }

    func poll(_ session: CameraSession, wait: Double) throws(PTPIPError) -> [ObjectAnnouncement] {
        try pushedObjects(session, wait: wait)
    }

    func stop(_ session: CameraSession, timeout: Double) throws(PTPIPError) {}
}

/// Canon EOS: remote mode and event mode on, then GetEvent polled with the adaptive interval;
/// ObjectAddedEx and RequestObjectTransfer records announce new files.
struct CanonEOSEventSource: CameraEventSource {
    private var interval = AdaptivePollInterval()
    /// GetEvent replies read at start-up at most, so that a body that reports properties on
    /// every poll cannot hold the start-up forever.
    static let startupDrainLimit = 20

    mutating func start(_ session: CameraSession) throws(PTPIPError) -> [ObjectAnnouncement] {
        try session.perform(.canonEOSSetRemoteMode, [1])
        try session.perform(.canonEOSSetEventMode, [1])
        var announced: [ObjectAnnouncement] = []
        for _ in 0..<Self.startupDrainLimit {
            let list = try getEvent(session)
            announced += Self.announcements(in: list)
            if list.isEmpty { break }
        }
        return announced
    }

    mutating func poll(_ session: CameraSession, wait: Double) throws(PTPIPError) -> [ObjectAnnouncement] {
        let pushed = try pushedObjects(session, wait: min(wait, interval.current))
        let list = try getEvent(session)
        interval.record(activity: !list.isEmpty || !pushed.isEmpty)
        return pushed + Self.announcements(in: list)
    }

    func stop(_ session: CameraSession, timeout: Double) throws(PTPIPError) {
        // Drain what is pending (anything new is found by the next connection's listing), then
        // hand the camera back to the photographer.
        _ = try session.client.transaction(.canonEOSGetEvent, dataIn: .collect(limit: CameraSession.collectLimit), timeout: timeout)
        _ = try session.client.transaction(.canonEOSSetRemoteMode, [0], timeout: timeout)
        _ = try session.client.transaction(.canonEOSSetEventMode, [0], timeout: timeout)
    }

    private func getEvent(_ session: CameraSession) throws(PTPIPError) -> CanonEOSEventList {
        let data = try session.data(.canonEOSGetEvent)
        do {
            return try CanonEOSEventList.parse(data)
        } catch {
            throw .protocolViolation(peer: session.address, detail: "unreadable Canon event list: \(error)")
        }
    }

    static func announcements(in list: CanonEOSEventList) -> [ObjectAnnouncement] {
        list.newObjects.map { ObjectAnnouncement(handle: $0.handle, needsTransferComplete: $0.needsTransferComplete) }
    }
}

/// Nikon: GetEvent (or GetEventEx where listed) polled with the adaptive interval; ObjectAdded
/// entries announce new files.
struct NikonEventSource: CameraEventSource {
    let useGetEventEx: Bool
    private var interval = AdaptivePollInterval()

    init(useGetEventEx: Bool) {
        self.useGetEventEx = useGetEventEx
    }

    func start(_ session: CameraSession) throws(PTPIPError) -> [ObjectAnnouncement] { [] }

    mutating func poll(_ session: CameraSession, wait: Double) throws(PTPIPError) -> [ObjectAnnouncement] {
        let pushed = try pushedObjects(session, wait: min(wait, interval.current))
        let operation: PTPOperationCode = useGetEventEx ? .nikonGetEventEx : .nikonGetEvent
        let data = try session.data(operation)
        let list: NikonEventList
        do {
            list = useGetEventEx ? try NikonEventList(decodingEx: data) : try NikonEventList(decoding: data)
        } catch {
            throw .protocolViolation(peer: session.address, detail: "unreadable Nikon event list: \(error)")
        }
        interval.record(activity: !list.events.isEmpty || !pushed.isEmpty)
        return pushed + list.addedObjectHandles.map { ObjectAnnouncement(handle: $0) }
    }

    func stop(_ session: CameraSession, timeout: Double) throws(PTPIPError) {}
}

extension CameraDialect {
    /// The event source for this dialect.
    func makeEventSource() -> any CameraEventSource {
        switch self {
        case .canonEOS: return CanonEOSEventSource()
        case .nikon(let ex): return NikonEventSource(useGetEventEx: ex)
        case .standard: return StandardEventSource()
        }
    }
}
