import Foundation

/// Parses an HTTP `Retry-After` value: delay seconds (`120`) or an HTTP-date
/// (`Sun, 06 Nov 1994 08:49:37 GMT`, and the two obsolete date forms RFC 9110 still accepts).
public enum RetryAfter {
    /// Seconds to wait from `now`, never negative; nil for anything that is not a valid value.
    public static func parse(_ value: String, now: Date = Date()) -> TimeInterval? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return nil }
        if trimmed.allSatisfy({ $0.isASCII && $0.isNumber }) {
            // Bounded digit count: a huge number means "much later", not an overflow.
            return trimmed.count > 12 ? 999_999_999_999 : TimeInterval(trimmed)
        }
        guard let date = httpDate(trimmed) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }

    private static let dateFormats = [
        "EEE, dd MMM yyyy HH:mm:ss 'GMT'",  // IMF-fixdate, the one servers should send
        "EEEE, dd-MMM-yy HH:mm:ss 'GMT'",  // RFC 850
        "EEE MMM d HH:mm:ss yyyy",  // asctime()
    ]

    /// An HTTP-date in any of its three forms; also how a store's `Date` and `Last-Modified` are read.
    public static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.isLenient = false
        let collapsed = text.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        for format in dateFormats {
            formatter.dateFormat = format
            if let date = formatter.date(from: collapsed) { return date }
        }
        return nil
    }
}
