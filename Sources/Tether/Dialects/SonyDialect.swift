import PTPIP
import PTPWire

/// Sony Alpha and Cyber-shot bodies over Wi-Fi (facts and sources in docs/CAMERAS.md, Sony).
///
/// - Recognised by vendor id 0x11, or by the manufacturer "Sony Corporation" behind the
///   0xFFFFFFFF id the bodies report over PTP/IP (libgphoto2 `fixup_cached_deviceinfo`).
/// - PC Remote: nothing but OpenSession and GetDeviceInfo may come before the SDIO connect
///   phases: SDIOConnect 1 and 2, GetSDIOExtDeviceInfo (asked again while its reply is empty,
///   its extra codes merged into DeviceInfo), SDIOConnect 3 (libgphoto2 library.c, rocc).
///   The card is not browsable then (GetObjectHandles answers StoreNotAvailable or hangs;
///   libgphoto2 issue 900, PR 1240): photos come from events alone. A new photo waits in camera
///   memory at handle 0xFFFFC001, announced by event 0xC201 and by property 0xD215 at or above
///   0x8000; it is read with GetObjectInfo and GetObject, and the next one then appears at the
///   same handle.
/// - Over PTP/IP a body that lists 0x9280 and 0x9281 is sent that pair after start-up (else it
///   keeps showing "Connecting..."; libgphoto2 issue 1219) and before the session closes (else
///   it accepts no further connection; issue 1218).
/// - One session per activation on the body, so relay spends it on nothing but the real run.
/// - GetDeviceInfo every 5 s keeps the link (airnef: "many cameras will drop the MTP session").
struct SonyDialect: CameraDialect {
    /// Set once the SDIO phases ran: the body is in PC Remote, its card not browsable.
    private var pcRemote = false
    /// The SDIO protocol the body speaks (its GetSDIOExtDeviceInfo answer): 300 for 3.00, 200
    /// for the older bodies that take a new shutter speed only in steps; 0 when it gave none,
    /// taken as 2.00 as libgphoto2 does.
    private var protocolVersion: UInt16 = 0
    private var lastKeepAlive = 0.0
    private var interval = AdaptivePollInterval(minimum: 0.1, step: 0.1, maximum: 0.5)

    /// Where a PC Remote body keeps its newest shot.
    static let memoryHandle: UInt32 = 0xFFFF_C001
    /// GetSDIOExtDeviceInfo: protocol 3.00 asked for; an older body answers with its own.
    static let sdioProtocolVersion: UInt32 = 0x12C
    static let sdioInfoAttempts = 20
    static let keepAliveInterval = 5.0

    static func recognises(_ info: PTPDeviceInfo) -> Bool { CameraVendor.of(info) == .sony }

    var description: String { pcRemote ? "Sony PC Remote events" : "Sony events" }

    var reusesHandles: Bool { true }

    mutating func start(_ session: CameraSession) throws(PTPIPError) -> [ObjectAnnouncement] {
        if session.supports(.sonyGetSDIOExtDeviceInfo) {
            protocolVersion = try sdioConnect(session)
            pcRemote = true
        }
        if session.supports(.sonyPTPIPTransferMode) && session.supports(.sonyPTPIPTransferModeResult) {
            try transferMode(session, data: Self.transferModeStart)
        }
        lastKeepAlive = session.now
        return []
    }

    /// SDIOConnect 1 and 2, GetSDIOExtDeviceInfo until it answers codes, SDIOConnect 3; returns
    /// the protocol version the body answered.
    private func sdioConnect(_ session: CameraSession) throws(PTPIPError) -> UInt16 {
        var version: UInt16 = 0
        let collect = PTPIPDataIn.collect(limit: CameraSession.collectLimit)
        for phase: UInt32 in [1, 2] {
            try CameraSession.requireOK(
                try session.call(.sonySDIOConnect, [phase, 0, 0], dataIn: collect),
                .sonySDIOConnect, address: session.address)
        }
        for _ in 0..<Self.sdioInfoAttempts {
            let data = try session.data(.sonyGetSDIOExtDeviceInfo, [Self.sdioProtocolVersion, 1])
            guard !data.isEmpty else { continue }
            do {
                let info = try SonyExtDeviceInfo(decoding: data)
                version = info.version
                session.deviceInfo.merge(info)
            } catch {
                throw .protocolViolation(peer: session.address, detail: "unreadable Sony extended DeviceInfo: \(error)")
            }
            break
        }
        try CameraSession.requireOK(
            try session.call(.sonySDIOConnect, [3, 0, 0], dataIn: collect),
            .sonySDIOConnect, address: session.address)
        return version
    }

    mutating func poll(_ session: CameraSession, wait: Double) throws(PTPIPError) -> CameraNews {
        var news = try pushedEvents(session, wait: min(wait, interval.current), added: [.sonyObjectAdded, .objectAdded])
        if pcRemote, news.added.isEmpty, session.supports(.getDevicePropValue) {
            // Events may be late or never come over Wi-Fi: the property says it too.
            let reply = try session.call(
                .getDevicePropValue, [UInt32(PTPDevicePropertyCode.sonyObjectInMemory.rawValue)],
                dataIn: .collect(limit: 64))
            var reader = PTPDataReader(reply.data ?? [])
            if reply.code.isOK, let waiting = try? reader.readU16(), waiting > 0x8000 {
                news.added.append(ObjectAnnouncement(handle: Self.memoryHandle))
            }
        }
        interval.record(activity: !news.isEmpty)
        return news
    }

    mutating func keepAlive(_ session: CameraSession, now: Double, idle: Double) throws(PTPIPError) {
        guard now - lastKeepAlive >= min(idle, Self.keepAliveInterval) else { return }
        lastKeepAlive = now
        _ = try session.call(.getDeviceInfo, dataIn: .collect(limit: CameraSession.collectLimit))
    }

    func stop(_ session: CameraSession, timeout: Double) throws(PTPIPError) {
        guard session.supports(.sonyPTPIPTransferMode) && session.supports(.sonyPTPIPTransferModeResult) else { return }
        _ = try session.client.transaction(.sonyPTPIPTransferMode, [4], dataOut: Self.transferModeEnd, timeout: timeout)
        _ = try session.client.transaction(
            .sonyPTPIPTransferModeResult, [4], dataIn: .collect(limit: CameraSession.collectLimit),
            timeout: timeout)
    }

    func storageListing(_ session: CameraSession) -> PTPOperationCode? {
        pcRemote || !session.supports(.getObjectHandles) ? nil : .getStorageIDs
    }

    /// A shot in memory leaves it only by being read to the end, so one relay does not take (a
    /// RAW) is read and dropped; the next shot then appears at the same handle (libgphoto2 drains
    /// stale shots the same way).
    func release(_ object: CameraObject, downloaded: Bool, session: CameraSession) throws(PTPIPError) {
        guard !downloaded, object.handle == Self.memoryHandle else { return }
        let limit = Int(object.info.compressedSize) + 1
        _ = try session.call(.getObject, [object.handle], dataIn: .stream(limit: limit, sink: { _ in }))
    }

    /// libgphoto2 reads the shot in memory with GetObject, never in parts.
    func downloadOperation(_ session: CameraSession) -> DownloadOperation {
        pcRemote || !session.supports(.getPartialObject) ? .wholeObject : .partialObject
    }

    /// 0x9280 then its data-in partner 0x9281, each with parameter 4.
    private func transferMode(_ session: CameraSession, data: [UInt8]) throws(PTPIPError) {
        _ = try session.call(.sonyPTPIPTransferMode, [4], dataOut: data)
        _ = try session.call(.sonyPTPIPTransferModeResult, [4], dataIn: .collect(limit: CameraSession.collectLimit))
    }

    /// u32 2, 2, 0, 0, then u8 1, 1: "sending" (libgphoto2 `camera_init`, issue 16's capture).
    static let transferModeStart: [UInt8] = [2, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1]
    /// u32 0, 5, 0, 0: the end of the transfer session (libgphoto2 `camera_exit`).
    static let transferModeEnd: [UInt8] = [0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]

    // MARK: - Bracketing

    /// ShutterSpeed 0xD20D and the dial 0x500E, read with GetDevicePropDesc; a new speed is set
    /// with SetControlDeviceA on a body of protocol 3.00, and stepped to on an older one.
    func exposureControl(_ session: CameraSession) throws(PTPIPError) -> ExposureControl? {
        try StandardExposure.sony.control(session)
    }

    func setShutterSpeed(_ speed: ShutterSpeed, _ control: ExposureControl, session: CameraSession) throws(PTPIPError)
        -> PTPResponseCode
    {
        guard protocolVersion < Self.directSpeedProtocol else {
            return try StandardExposure.sony.set(speed, control, session)
        }
        // Protocol 2.00 takes a speed only in steps of its dial: SetControlDeviceB on 0xD20D with
        // one signed byte, the number of steps, positive towards shorter exposures (libgphoto2
        // config.c `_put_Sony_ShutterSpeedMode2`, which jumps the whole width at once).
        // A body that lists no speeds steps through the usual third stops (libgphoto2 steps
        // through its own table then).
        let scale = control.offered.isEmpty ? ShutterSpeed.thirdStops : control.offered
        guard let current = try StandardExposure.sony.current(session), let from = scale.firstIndex(of: current),
            let to = scale.firstIndex(of: speed)
        else { return .invalidDevicePropValue }
        let steps = Int8(max(-127, min(127, to - from)))
        guard steps != 0 else { return .ok }
        return try session.call(
            .sonySetControlDeviceB, [UInt32(PTPDevicePropertyCode.sonyShutterSpeed.rawValue)],
            dataOut: [UInt8(bitPattern: steps)]
        ).code
    }

    /// The first protocol version whose bodies take a shutter speed with SetControlDeviceA
    /// (libgphoto2 config.c `_put_Sony_ShutterSpeed`: mode 3 sets it, mode 2 steps).
    static let directSpeedProtocol: UInt16 = 300

    func shutterSpeed(_ session: CameraSession) throws(PTPIPError) -> ShutterSpeed? {
        try StandardExposure.sony.current(session)
    }

    /// The half and full press of SetControlDeviceB where the body lists it.
    func trigger(_ session: CameraSession) -> Result<CaptureTrigger, TriggerUnavailable> {
        session.supports(.sonySetControlDeviceB) ? .success(.sonyHalfFull) : CaptureTrigger.standard(session)
    }
}
