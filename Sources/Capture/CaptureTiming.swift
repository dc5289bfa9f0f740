import Foundation
import RelayCore

/// The time forms `relay capture` accepts: an interval (Camera2URL's rule: at least 1 second),
/// a run length, and an end time. Pure, so each rule is tested without a camera.
public enum CaptureTiming {
    /// The shortest interval between two shots.
    public static let minimumInterval = 1.0

    /// The `--every` interval, in relay's duration grammar (`DurationText`); one under a second
    /// (0, and a negative one, which is read as a slip rather than refused) is raised to 1 s, and
    /// `note` says so.
    public static func interval(_ text: String) throws(CaptureTimingError) -> (seconds: Double, note: String?) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let negative = trimmed.hasPrefix("-")
        guard let seconds = DurationText.seconds(negative ? String(trimmed.dropFirst()) : trimmed) else {
            throw .badDuration(option: "--every", text: text)
        }
        guard !negative, seconds >= minimumInterval else {
            return (minimumInterval, "--every \(text) is under the 1 second minimum between shots; using 1s")
        }
        return (seconds, nil)
    }

    /// The `--for` length of a run: a positive duration.
    public static func runLength(_ text: String) throws(CaptureTimingError) -> Double {
        guard let seconds = DurationText.seconds(text), seconds > 0 else { throw .badDuration(option: "--for", text: text) }
        return seconds
    }

    /// The `--until` end: `HH:MM[:SS]` (the next such time, today or tomorrow) or
    /// `YYYY-MM-DDTHH:MM[:SS]`, both local time; it must be in the future.
    public static func endTime(_ text: String, now: Date, calendar: Calendar = .current) throws(CaptureTimingError) -> Date {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let parts = trimmed.split(separator: "T", omittingEmptySubsequences: false)
        guard parts.count <= 2, let clock = parts.last.flatMap({ Self.clock(String($0)) }) else { throw .badTime(text) }
        var components: DateComponents
        if parts.count == 2 {
            let day = parts[0].split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
            guard day.count == 3, let year = day[0], let month = day[1], let dayOfMonth = day[2] else { throw .badTime(text) }
            components = DateComponents(year: year, month: month, day: dayOfMonth)
        } else {
            components = calendar.dateComponents([.year, .month, .day], from: now)
        }
        components.hour = clock.hour
        components.minute = clock.minute
        components.second = clock.second
        guard var end = calendar.date(from: components) else { throw .badTime(text) }
        // Out-of-range days and months roll over in Calendar; a time that does not exist is refused.
        let made = calendar.dateComponents([.month, .day, .hour, .minute], from: end)
        guard made.month == components.month, made.day == components.day, made.hour == clock.hour,
            made.minute == clock.minute
        else { throw .badTime(text) }
        if parts.count == 1 && end <= now {
            guard let tomorrow = calendar.date(byAdding: .day, value: 1, to: end) else { throw .badTime(text) }
            end = tomorrow
        }
        guard end > now else { throw .pastTime(text) }
        return end
    }

    private static func clock(_ text: String) -> (hour: Int, minute: Int, second: Int)? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
        guard (2...3).contains(fields.count), fields.allSatisfy({ $0 != nil }) else { return nil }
        let hour = fields[0]!
        let minute = fields[1]!
        let second = fields.count == 3 ? fields[2]! : 0
        guard (0..<24).contains(hour), (0..<60).contains(minute), (0..<60).contains(second) else { return nil }
        return (hour, minute, second)
    }
}

/// A capture timing option that could not be read; the message lists the accepted forms.
public enum CaptureTimingError: Error, Equatable, CustomStringConvertible {
    case badDuration(option: String, text: String)
    case badTime(String)
    case pastTime(String)

    public var description: String {
        switch self {
        case .badDuration(let option, let text):
            return CommandLineValueError.notADuration(option: option, text: text).description
        case .badTime(let text):
            return "--until '\(text)' is not a time: give HH:MM, HH:MM:SS or YYYY-MM-DDTHH:MM (local time)"
        case .pastTime(let text):
            return "--until '\(text)' is in the past: give a time still to come"
        }
    }
}
