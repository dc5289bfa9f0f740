import Foundation

/// The rule behind the low battery and low card warnings: one warning per camera when its
/// battery falls to `batteryPercent` or below, and one when fewer than `cardShots` shots fit on
/// its card. A reading back above the line with some margin (a fresh battery, an emptied card)
/// arms the warning again.
public struct LowResourceWatch: Sendable, Equatable {
    public static let batteryPercent = 20
    public static let cardShots = 100
    /// How far above the line a reading must come back before it warns again, so that a level
    /// wobbling around 20 % warns once.
    static let batteryMargin = 10
    static let cardMargin = 50

    private var batteryWarned: Set<String> = []
    private var cardWarned: Set<String> = []

    public init() {}

    /// The warnings `event` gives rise to (none, or one).
    public mutating func derive(from event: TimedEvent) -> [TimedEvent] {
        guard case .source(let source, let sourceEvent) = event.event else { return [] }
        switch sourceEvent {
        case .battery(let percent):
            if percent <= Self.batteryPercent {
                if batteryWarned.insert(source).inserted {
                    return [TimedEvent(at: event.at, .source(source, .batteryLow(percent: percent)))]
                }
            } else if percent > Self.batteryPercent + Self.batteryMargin {
                batteryWarned.remove(source)
            }
        case .card(let space):
            guard let shots = space.freeShots else { return [] }
            if shots < Self.cardShots {
                if cardWarned.insert(source).inserted {
                    return [TimedEvent(at: event.at, .source(source, .cardLow(shots: shots)))]
                }
            } else if shots >= Self.cardShots + Self.cardMargin {
                cardWarned.remove(source)
            }
        default:
            break
        }
        return []
    }
}
