import Foundation

/// A moment as the stamp writes it, in one time zone: worked out once per photo with the
/// Gregorian calendar (a DateFormatter per field cost more than the rest of a stamp).
struct LocalTime: Sendable, Equatable {
    var year, month, day, hour, minute, second: Int
    /// Seconds east of UTC.
    var offset: Int

    init(_ date: Date, timeZone: TimeZone) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        year = parts.year ?? 1970
        month = parts.month ?? 1
        day = parts.day ?? 1
        hour = parts.hour ?? 0
        minute = parts.minute ?? 0
        second = parts.second ?? 0
        offset = timeZone.secondsFromGMT(for: date)
    }

    private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// "2026-11-18".
    var date: String { "\(year)-\(Self.two(month))-\(Self.two(day))" }
    /// "18:04:05".
    var time: String { "\(Self.two(hour)):\(Self.two(minute)):\(Self.two(second))" }
    /// "+0100", "-0500".
    var offsetText: String {
        let minutes = abs(offset) / 60
        return (offset < 0 ? "-" : "+") + Self.two(minutes / 60) + Self.two(minutes % 60)
    }
    /// IIM 2:55, "20261118".
    var iimDate: String { "\(year)\(Self.two(month))\(Self.two(day))" }
    /// IIM 2:60, "180405+0100".
    var iimTime: String { "\(Self.two(hour))\(Self.two(minute))\(Self.two(second))" + offsetText }
    /// XMP's photoshop:DateCreated, "2026-11-18T18:04:05+01:00".
    var xmp: String {
        let text = offsetText
        return date + "T" + time + text.prefix(3) + ":" + text.suffix(2)
    }
}
