import CommandLineOptions
import RelayCore

/// Fault injection, each off unless asked for; all randomness comes from `--seed`.
public struct SimFaults: Sendable, Equatable {
    public var bytesPerSecond: Int?
    public var randomSplit = false
    public var busyAfterConnect: Double = 0
    public var busyRate: Double = 0
    public var dropAfterBytes: Int?
    public var dropDuringTransfer: Int?
    public var dropEvery: Int?
    /// Fraction of new photos the camera never announces (a lost event).
    public var loseEvents: Double = 0
    /// How the camera answers its shutter releases, in order: `.` as usual, `B` DeviceBusy
    /// (no shot), `N` OK but no photo; after the last letter, as usual.
    public var captureAnswers = ""
    /// A protocol violation the camera commits on purpose.
    public var hostility: SimHostility?
    public var eventChannelTimeout: Double = 10

    public init() {}
}

extension SimFaults {
    static let rateLimit = Option.size("--rate-limit", "send at most this many bytes per second", in: 1...(1 << 40))
    static let randomSplit = Flag(
        "--random-split", "data phases in Data packets of random sizes, and every write cut into random small pieces")
    static let busyAfterConnect = Option.duration(
        "--busy-after-connect",
        "answer DeviceBusy for this long after the client connects (OpenSession, CloseSession and GetDeviceInfo are always "
            + "answered)", default: SimFaults().busyAfterConnect, in: 0...86_400)
    static let busyRate = SimOptions.fraction("--busy-rate", "answer DeviceBusy to this fraction of operations")
    static let dropAfterBytes = Option.size(
        "--drop-after-bytes", "close the connection once this many bytes were sent (once per run)", in: 0...(1 << 40))
    static let dropDuringTransfer = Option.integer(
        "--drop-during-transfer", "K", "close the connection halfway through the K-th object transfer (once per run)",
        in: 1...1_000_000)
    static let dropEvery = Option.size(
        "--drop-every",
        "close the connection each time this many more bytes were sent (e.g. 3M: a link that keeps failing in the middle of files)",
        in: 1...(1 << 40))
    static let propertyFlood = Option.integer(
        "--property-flood", "N", "canon-eos: put N property records in every GetEvent reply", default: SimOptions().propertyFlood,
        in: 0...1000)
    static let loseEvents = SimOptions.fraction(
        "--lose-events", "never announce this fraction of new photos (they are on the card, for a listing to find)")
    static let captureAnswers = Option.value(
        "--capture-answers", "LETTERS",
        "how the camera answers its shutter releases, in turn: . as usual, B DeviceBusy, N OK but no photo (e.g. ..B.BBB); "
            + "then as usual"
    ) { raw throws(CommandFailure) in
        guard !raw.isEmpty, raw.allSatisfy({ ".BN".contains($0) }) else {
            throw CommandFailure.badValue("--capture-answers", raw, expected: "letters . (as usual), B (DeviceBusy) or N (no photo)")
        }
        return raw
    }
    static let hostile = Option.choice(
        "--hostile",
        "break the protocol on purpose: oversized-length, truncated-packet, wrong-transaction (answers to GetObjectInfo), "
            + "malformed-strings (DeviceInfo), long-name, traversal-name (photo names), overlong-data (photo data longer than "
            + "announced)",
        SimHostility.allCases.map { (word: $0.rawValue, value: $0) })
    static let eventTimeout = Option.duration(
        "--event-timeout", "refuse a client whose event channel is not open within this time after the command handshake",
        default: SimFaults().eventChannelTimeout, in: 0.1...86_400)

    static let section = CommandSpec.Section(
        title: "FAULTS",
        options: [
            rateLimit.spec, randomSplit.spec, busyAfterConnect.spec, busyRate.spec, dropAfterBytes.spec, dropDuringTransfer.spec,
            dropEvery.spec, propertyFlood.spec, loseEvents.spec, captureAnswers.spec, hostile.spec, eventTimeout.spec,
        ])

    /// The faults `args` asks for.
    init(_ args: Arguments) throws(CommandFailure) {
        self.init()
        bytesPerSecond = try args.value(Self.rateLimit).map { Int($0) }
        randomSplit = args.has(Self.randomSplit)
        busyAfterConnect = try args.value(Self.busyAfterConnect) ?? busyAfterConnect
        busyRate = try args.value(Self.busyRate) ?? busyRate
        dropAfterBytes = try args.value(Self.dropAfterBytes).map { Int($0) }
        dropDuringTransfer = try args.value(Self.dropDuringTransfer)
        dropEvery = try args.value(Self.dropEvery).map { Int($0) }
        loseEvents = try args.value(Self.loseEvents) ?? loseEvents
        captureAnswers = try args.value(Self.captureAnswers) ?? captureAnswers
        hostility = try args.value(Self.hostile)
        eventChannelTimeout = try args.value(Self.eventTimeout) ?? eventChannelTimeout
    }
}
