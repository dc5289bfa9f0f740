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

    /// The flags parsed here.
    static let flags: Set<String> = ["--battery", "--battery-drain", "--card-free", "--card-shots"]

    /// Sets what `flag` names from its value.
    mutating func set(_ flag: String, to value: String) throws {
        switch flag {
        case "--battery": batteryPercent = try SimOptions.integer(value, flag: flag, range: 0...100)
        case "--battery-drain": drainPerShot = try Self.percent(value, flag: flag)
        case "--card-free": cardFreeBytes = try SimOptions.byteCount(value, flag: flag, range: 0...(1 << 50))
        case "--card-shots": cardFreeShots = try SimOptions.integer(value, flag: flag, range: 0...10_000_000)
        default: throw SimOptionsError.unknownFlag(flag)
        }
    }

    /// A percentage from 0 to 100, fractions allowed ("0.5").
    static func percent(_ raw: String, flag: String) throws -> Double {
        let digits = raw.hasSuffix("%") ? String(raw.dropLast()) : raw
        guard let value = Double(digits), value.isFinite, value >= 0, value <= 100 else {
            throw SimOptionsError.invalidValue(flag: flag, value: raw, expected: "a percentage from 0 to 100")
        }
        return value
    }

    static let usage = """
        Battery and card (read with BatteryLevel 0x5001, Canon's 0xD111/0xD11B event records, Sony's
        0xD218, and StorageInfo):
          --battery PERCENT         battery level at start (default 100)
          --battery-drain PERCENT   level lost with each frame shot (default 0; e.g. 5 or 0.5); the
                                    body reports each change as its family does
          --card-free BYTES         free card space at start (e.g. 64G, 25M; default a 32G card less
                                    the photos on it); shrinks with every photo kept on the card
          --card-shots N            shots that fit in that space at start, as the body estimates them
                                    (default: the space over the size of one shot)
        """
}
