import CommandLineOptions

/// How full the simulated body's battery and card are, and how fast they run down: what a
/// client reads as BatteryLevel (or the vendor's battery property) and StorageInfo's free space.
/// Parsed here, apart from the other flags, so that the battery and card stay one concern.
public struct SimResourceOptions: Sendable, Equatable {
    /// Battery level at start, in percent.
    public var batteryPercent = 100
    /// Percent the battery loses with each frame shot.
    public var drainPerShot = 0.0
    /// Free card space at start; nil: a 32 GB card less the photos on it.
    public var cardFreeBytes: Int?
    /// Shots that fit in `cardFreeBytes` at start, as the body estimates them; nil: the free space
    /// divided by the size of one shot (JPEG, and RAW with `--raw`).
    public var cardFreeShots: Int?

    public init() {}

    /// The capacity of the card when `--card-free` is not given (a common 32 GB card).
    static let defaultCardCapacity = 32_000_000_000

    static let battery = Option.integer(
        "--battery", "PERCENT", "battery level at start", default: SimResourceOptions().batteryPercent, in: 0...100)
    static let batteryDrain = Option.value(
        "--battery-drain", "PERCENT",
        "level lost with each frame shot (e.g. 5 or 0.5); the body reports each change as its family does",
        default: SimResourceOptions().drainPerShot, defaultText: "0"
    ) { raw throws(CommandFailure) in
        let digits = raw.hasSuffix("%") ? String(raw.dropLast()) : raw
        guard let value = Double(digits), value.isFinite, value >= 0, value <= 100 else {
            throw CommandFailure.badValue("--battery-drain", raw, expected: "a percentage from 0 to 100")
        }
        return value
    }
    static let cardFree = Option.size(
        "--card-free",
        "free card space at start (e.g. 64G, 25M; default a 32G card less the photos on it); shrinks with every photo kept "
            + "on the card",
        in: 0...(1 << 50))
    static let cardShots = Option.integer(
        "--card-shots", "N",
        "shots that fit in that space at start, as the body estimates them (default: the space over the size "
            + "of one shot)", in: 0...10_000_000)

    static let section = CommandSpec.Section(
        title: "BATTERY AND CARD (read with BatteryLevel 0x5001, Canon's 0xD111/0xD11B event records, Sony's 0xD218, and "
            + "StorageInfo)",
        options: [battery.spec, batteryDrain.spec, cardFree.spec, cardShots.spec])

    /// The battery and card `args` describes.
    init(_ args: Arguments) throws(CommandFailure) {
        self.init()
        batteryPercent = try args.value(Self.battery) ?? batteryPercent
        drainPerShot = try args.value(Self.batteryDrain) ?? drainPerShot
        cardFreeBytes = try args.value(Self.cardFree).map { Int($0) }
        cardFreeShots = try args.value(Self.cardShots)
    }
}
