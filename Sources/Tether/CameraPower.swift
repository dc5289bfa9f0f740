import PTPIP
import PTPWire
import RunEvents

/// A change in a camera's battery or card, to be reported.
enum PowerChange: Hashable, Sendable {
    case battery(percent: Int)
    /// Free card space: bytes (StorageInfo) and shots (the body's estimate), each when known.
    case card(freeBytes: Int64?, freeShots: Int?)

    /// What the source reports for it.
    var event: SourceEvent {
        switch self {
        case .battery(let percent): return .battery(percent: percent)
        case .card(let bytes, let shots): return .card(CardSpace(freeBytes: bytes, freeShots: shots))
        }
    }
}

/// Reads a connected camera's battery level and free card space: once after connecting, then
/// every `interval`, at once when its events say the battery or the storage changed, and after
/// each photo for the card. Only changes are handed out. A body that does not report one of them
/// (no battery property listed, a card that cannot be read in this mode) gives nothing, once
/// and quietly.
///
/// Where bodies keep the values (libgphoto2 camlibs/ptp2 ptp.h, config.c, ptp-pack.c):
/// - standard PTP and Nikon: BatteryLevel 0x5001 (GetDevicePropDesc 0x1014 for its form, then
///   GetDevicePropValue 0x1015), a change announced by DevicePropChanged 0x4006 (on the event
///   channel, or in Nikon's GetEvent list);
/// - Canon EOS: BatteryPower 0xD111 in Canon's steps and AvailableShots 0xD11B, both only in the
///   GetEvent 0x9116 stream (the dialect passes them on through `CameraPowerSignals`);
/// - Sony: BatteryLevel 0xD218 (INT8), listed in the SDIO extended DeviceInfo and asked with
///   GetDevicePropDesc (a body that hands its properties out only in the 0x9209 blob refuses,
///   and gives no reading);
/// - the card: GetStorageIDs 0x1004 and GetStorageInfo 0x1005 (FreeSpaceInBytes,
///   FreeSpaceInImages), summed over the storages; StorageInfoChanged 0x400C and StoreFull 0x400A
///   ask for a new reading.
///
/// Lives on the camera's thread, with its session.
struct CameraPower {
    /// Seconds between two readings when no event asks for one.
    static let interval = 30.0
    /// Least time between two card readings asked for by photos, so that a burst costs one.
    static let cardSpacing = 1.0
    /// When a reading the camera answered DeviceBusy to is asked again.
    static let busyRetry = 5.0

    /// Where a body keeps its battery level.
    enum BatterySource: Equatable {
        case standard, sony, canonEvents, none
    }

    private var source: BatterySource?
    /// The form of the standard property, read once with its description.
    private var form: PTPDevicePropDesc.Form?
    private var batteryUnreadable = false
    private var cardUnreadable = false
    private var nextBatteryRead = -Double.infinity
    private var nextCardRead = -Double.infinity
    private var lastCardRead = -Double.infinity
    private var photoSinceCardRead = false
    /// Canon EOS AvailableShots, once the event stream gave it.
    private var canonShots: Int?
    private(set) var battery: Int?
    private(set) var card: PowerChange?

    /// Where the camera that sent `info` keeps its battery level.
    static func batterySource(_ info: PTPDeviceInfo) -> BatterySource {
        if info.supports(.canonEOSGetEvent) { return .canonEvents }
        let properties = Set(info.devicePropertiesSupported)
        guard info.supports(.getDevicePropDesc) || info.supports(.sonyGetAllExtDevicePropInfo) else { return .none }
        if properties.contains(PTPDevicePropertyCode.batteryLevel.rawValue) { return .standard }
        if properties.contains(PTPDevicePropertyCode.sonyBatteryLevel.rawValue) { return .sony }
        return .none
    }

    /// The camera announced a new photo: the card's free space is read again soon.
    mutating func photoTaken() {
        photoSinceCardRead = true
    }

    /// Reads what is due and returns what changed. `storageReadable` is false where the dialect
    /// cannot browse the card in this mode (Sony in PC Remote), so that it is not asked.
    mutating func update(_ session: CameraSession, now: Double, storageReadable: Bool) throws(PTPIPError) -> [PowerChange] {
        let signals = session.powerSignals
        session.powerSignals = CameraPowerSignals()
        var changes: [PowerChange] = []
        if let percent = try readBattery(session, signals: signals, now: now), percent != battery {
            battery = percent
            changes.append(.battery(percent: percent))
        }
        if let space = try readCard(session, signals: signals, now: now, storageReadable: storageReadable), space != card {
            card = space
            changes.append(space)
        }
        return changes
    }

    private mutating func readBattery(_ session: CameraSession, signals: CameraPowerSignals, now: Double) throws(PTPIPError) -> Int? {
        let source = self.source ?? Self.batterySource(session.deviceInfo)
        self.source = source
        switch source {
        case .canonEvents:
            return signals.canonBatteryStep.flatMap(BatteryLevel.percent(canonEOSStep:))
        case .none:
            return nil
        case .standard, .sony:
            guard !batteryUnreadable, now >= nextBatteryRead || signals.batteryChanged else { return nil }
            nextBatteryRead = now + Self.interval
            let property = UInt32((source == .sony ? PTPDevicePropertyCode.sonyBatteryLevel : .batteryLevel).rawValue)
            if source == .sony, session.supports(.sonyGetAllExtDevicePropInfo) {
                // Real Sony bodies hand the level out with every other property (0x9209).
                switch try Self.ask(session, .sonyGetAllExtDevicePropInfo, limit: CameraSession.collectLimit) {
                case .busy:
                    nextBatteryRead = now + Self.busyRetry
                case .answer(let data):
                    if let desc = (try? SonyPropertyList(decoding: data))?.properties[UInt16(property)] {
                        return BatteryLevel.percent(sony: desc)
                    }
                    batteryUnreadable = true
                case .refused:
                    batteryUnreadable = true
                }
                return nil
            }
            if source == .standard, let form, session.supports(.getDevicePropValue) {
                switch try Self.ask(session, .getDevicePropValue, [property]) {
                case .busy:
                    nextBatteryRead = now + Self.busyRetry
                case .answer(let data):
                    if let value = try? PTPDevicePropDesc.decodeValue(data, as: .uint8) {
                        return BatteryLevel.percent(value: value, form: form)
                    }
                    batteryUnreadable = true
                case .refused:
                    batteryUnreadable = true
                }
                return nil
            }
            switch try Self.ask(session, .getDevicePropDesc, [property]) {
            case .busy:
                nextBatteryRead = now + Self.busyRetry
            case .answer(let data):
                guard let desc = try? PTPDevicePropDesc(decoding: data) else {
                    batteryUnreadable = true
                    break
                }
                if source == .sony { return BatteryLevel.percent(sony: desc) }
                // The standard property is a UINT8; a body giving another type is not read by value.
                if desc.dataType == .uint8 { form = desc.form }
                return BatteryLevel.percent(standard: desc)
            case .refused:
                batteryUnreadable = true
            }
            return nil
        }
    }

    private mutating func readCard(
        _ session: CameraSession, signals: CameraPowerSignals, now: Double,
        storageReadable: Bool
    ) throws(PTPIPError) -> PowerChange? {
        var bytes: Int64?
        var shots: Int?
        if case .card(let knownBytes, let knownShots) = card {
            bytes = knownBytes
            shots = knownShots
        }
        var read = false
        let due =
            now >= nextCardRead || signals.storageChanged
            || (photoSinceCardRead && now - lastCardRead >= Self.cardSpacing)
        if storageReadable, !cardUnreadable, due, session.supports(.getStorageIDs), session.supports(.getStorageInfo) {
            nextCardRead = now + Self.interval
            lastCardRead = now
            photoSinceCardRead = false
            switch try readStorage(session) {
            case .answer(let space):
                bytes = space.bytes
                shots = space.shots
                read = true
            case .busy:
                nextCardRead = now + Self.busyRetry
            case .refused:
                cardUnreadable = true
            }
        }
        if let available = signals.canonAvailableShots {
            canonShots = Int(available)
            read = true
        }
        // The body's own count, as its display shows it, wins over StorageInfo's estimate.
        if let canonShots { shots = canonShots }
        return read ? .card(freeBytes: bytes, freeShots: shots) : nil
    }

    /// Free bytes and shots over every storage that answers.
    private func readStorage(_ session: CameraSession) throws(PTPIPError) -> Answer<(bytes: Int64, shots: Int?)> {
        let storages: [UInt32]
        switch try Self.ask(session, .getStorageIDs) {
        case .answer(let data):
            var reader = PTPDataReader(data)
            guard let ids = try? reader.readArrayU32(limit: 64), !ids.isEmpty else { return .refused }
            storages = ids
        case .busy: return .busy
        case .refused: return .refused
        }
        var bytes: Int64 = 0
        var shots: Int? = 0
        var answered = false
        for storage in storages {
            guard case .answer(let data) = try Self.ask(session, .getStorageInfo, [storage]),
                let info = try? PTPStorageInfo(decoding: data)
            else { continue }
            answered = true
            bytes += Int64(min(info.freeSpaceInBytes, UInt64(Int64.max / 4)))
            shots = info.freeImages.flatMap { images in shots.map { $0 + images } }
        }
        return answered ? .answer((bytes, shots)) : .refused
    }

    /// What a camera said to one question about its battery or card.
    private enum Answer<Value> {
        case answer(Value)
        /// DeviceBusy: asked again after `busyRetry`, not retried on the spot, so that a busy
        /// body (bodies are busy on low battery) does not hold up its photos.
        case busy
        /// Any other refusal: the body does not tell, and is not asked again this session.
        case refused
    }

    private static func ask(
        _ session: CameraSession, _ code: PTPOperationCode,
        _ parameters: [UInt32] = [], limit: Int = 1 << 16
    ) throws(PTPIPError) -> Answer<[UInt8]> {
        let reply = try session.client.transaction(code, parameters, dataIn: .collect(limit: limit))
        if reply.code == .deviceBusy { return .busy }
        return reply.code.isOK ? .answer(reply.data ?? []) : .refused
    }
}
