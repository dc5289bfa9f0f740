import Foundation
import PTPWire
import SocketIO

/// The standard PTP part of a simulated body for one session: its card, the photos not yet
/// announced, and the answers every profile gives alike (storage, listing, object info,
/// transfers). Vendor behaviours call these for their own variants of the operations.
public struct SimCamera: Sendable {
    public let card: CameraCard
    public let body: SimBody
    /// Frames per shot for capture operations.
    public let burst: Int
    /// Whether the camera can be fired remotely (a body in playback mode cannot).
    public let remoteCapture: Bool
    public internal(set) var sessionOpen = false
    /// Photos shot but not yet announced to this session.
    var undelivered: [SimObject] = []
    /// Objects whose info changed (protected, rated) not yet announced to this session.
    var changedUndelivered: [UInt32] = []
    /// Seconds on a monotonic clock (tests pass their own).
    let clock: @Sendable () -> Double

    init(
        card: CameraCard, body: SimBody, burst: Int, remoteCapture: Bool,
        clock: @escaping @Sendable () -> Double = { SocketClock.now() }
    ) {
        self.card = card
        self.body = body
        self.burst = burst
        self.remoteCapture = remoteCapture
        self.clock = clock
    }

    /// Moves photos shot since the last call into the undelivered list.
    mutating func collectNewShots() {
        undelivered += card.takeNewObjects()
        changedUndelivered += card.takeChangedObjects()
    }

    /// ObjectInfoChanged (0x4007) for each object whose info changed, once each: how standard
    /// PTP bodies, and Nikon DSLRs (gphoto2 issue 468, D5600), say a shot was protected or rated.
    mutating func takeInfoChangedEvents() -> [PTPEvent] {
        defer { changedUndelivered.removeAll() }
        return changedUndelivered.map { PTPEvent(code: .objectInfoChanged, parameters: [$0]) }
    }

    /// A capture operation: the card queues the new photos like any other shot; taking them at
    /// once keeps their announcement in order with the capture's own reply.
    mutating func shoot() {
        card.shoot(frames: burst)
        collectNewShots()
    }

    // MARK: - Standard answers

    func storageIDs() -> SimReply {
        var writer = PTPDataWriter()
        writer.appendArrayU32([CameraCard.storageID])
        return SimReply(code: .ok, data: writer.bytes)
    }

    func storageInfo() -> SimReply {
        let free = card.freeSpace
        return SimReply(
            code: .ok,
            data: PTPStorageInfo(
                storageType: 4, filesystemType: 3, accessCapability: 0,
                maxCapacity: UInt64(max(0, card.usedBytes)) + free.bytes, freeSpaceInBytes: free.bytes,
                freeSpaceInImages: free.shots,
                storageDescription: body.storageDescription, volumeLabel: "RELAYSIM"
            ).encoded())
    }

    func objectInfo(_ handle: UInt32) -> SimReply {
        guard let object = card.object(handle) else { return SimReply(code: .invalidObjectHandle) }
        return SimReply(code: .ok, data: SimResponder.objectInfo(object).encoded())
    }

    /// GetObject (no count parameter) or GetPartialObject (the count as the response parameter).
    func transfer(handle: UInt32, offset: Int, count: Int, reportCount: Bool) -> SimReply {
        guard let object = card.object(handle), !object.isFolder else {
            return SimReply(code: .invalidObjectHandle)
        }
        return Self.transfer(
            object, offset: offset, count: count,
            parameters: { reportCount ? [UInt32(truncatingIfNeeded: $0)] : [] })
    }

    /// Up to `count` bytes of `object` from `offset`; `parameters` makes the response's
    /// parameters from the byte count.
    static func transfer(_ object: SimObject, offset: Int, count: Int, parameters: (Int) -> [UInt32]) -> SimReply {
        let start = min(max(0, offset), object.size)
        let length = min(max(0, count), object.size - start)
        var reply = SimReply(code: .ok, parameters: parameters(length))
        reply.data = .object(object.content, offset: start, count: length)
        return reply
    }

    func storageMatches(_ storage: UInt32) -> Bool {
        storage == 0xFFFF_FFFF || storage == CameraCard.storageID || storage == 0
    }
}
