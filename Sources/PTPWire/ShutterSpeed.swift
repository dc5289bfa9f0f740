import Foundation

/// A shutter speed as photographers and camera bodies write it: an exact fraction of a second
/// (1/250, 1/3, 13/10, 30), so that a planned speed and the body's own value compare equal.
public struct ShutterSpeed: Hashable, Sendable, Comparable, Codable, CustomStringConvertible {
    /// Kept in lowest terms.
    public let numerator: UInt32
    public let denominator: UInt32

    /// Nil for a zero or negative fraction.
    public init?(numerator: UInt32, denominator: UInt32) {
        guard numerator > 0, denominator > 0 else { return nil }
        var (a, b) = (numerator, denominator)
        while b != 0 { (a, b) = (b, a % b) }
        self.numerator = numerator / a
        self.denominator = denominator / a
    }

    /// `seconds` as 1/N where it is one, else to the microsecond below a second and to the
    /// tenth above (camera values come as 1/N, tenths or whole seconds).
    public init?(seconds: Double) {
        guard seconds.isFinite, seconds > 0, seconds <= 100_000 else { return nil }
        let inverse = (1 / seconds).rounded()
        if seconds < 1, inverse <= 1_000_000, abs(1 / inverse - seconds) < seconds * 1e-6 {
            self.init(numerator: 1, denominator: UInt32(inverse))
        } else if seconds < 1 {
            self.init(numerator: UInt32((seconds * 1_000_000).rounded()), denominator: 1_000_000)
        } else {
            self.init(numerator: UInt32((seconds * 10).rounded()), denominator: 10)
        }
    }

    public var seconds: Double { Double(numerator) / Double(denominator) }

    /// Stops between this speed and `other`: positive when this one lets in more light.
    public func stops(from other: ShutterSpeed) -> Double { log2(seconds / other.seconds) }

    /// This speed `stops` stops longer (negative: shorter).
    public func adding(stops: Double) -> ShutterSpeed? { ShutterSpeed(seconds: seconds * pow(2, stops)) }

    public static func < (lhs: ShutterSpeed, rhs: ShutterSpeed) -> Bool {
        UInt64(lhs.numerator) * UInt64(rhs.denominator) < UInt64(rhs.numerator) * UInt64(lhs.denominator)
    }

    /// As bodies show it: `1/250` below a third of a second, `0.5"`, `2"`, `30"` from there.
    public var description: String {
        if numerator == 1 && denominator > 3 { return "1/\(denominator)" }
        if denominator == 1 { return "\(numerator)\"" }
        let text = String(format: "%.1f", seconds)
        return (text.hasSuffix(".0") ? String(text.dropLast(2)) : text) + "\""
    }

    // MARK: - Reading what a photographer writes

    /// The forms `parse` takes, for messages.
    public static let acceptedForms = "1/250, 0.5, 2\", 2s or 30s"

    /// Reads `1/250`, `1/3`, `0.5`, `2"`, `2s`, `30s` or `2`. Between 1/64000 s and 60 min.
    public static func parse(_ text: String) throws(ShutterSpeedError) -> ShutterSpeed {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        var body = Substring(trimmed)
        if body.hasSuffix("\"") || body.hasSuffix("s") || body.hasSuffix("″") { body = body.dropLast() }
        let speed: ShutterSpeed?
        if let slash = body.firstIndex(of: "/") {
            let top = UInt32(body[..<slash])
            let bottom = UInt32(body[body.index(after: slash)...])
            speed = top.flatMap { top in bottom.flatMap { ShutterSpeed(numerator: top, denominator: $0) } }
        } else if let value = Double(body), body.allSatisfy({ $0.isNumber || $0 == "." }) {
            speed = ShutterSpeed(seconds: value)
        } else {
            speed = nil
        }
        guard let speed else { throw .unreadable(text) }
        guard speed.seconds >= 1.0 / 64000 && speed.seconds <= 3600 else { throw .outOfRange(text) }
        return speed
    }

    // MARK: - The scale bodies offer

    /// 30" to 1/8000 in third stops, as bodies mark them (55 speeds, slowest first).
    public static let thirdStops: [ShutterSpeed] =
        [30, 25, 20, 15, 13, 10, 8, 6, 5, 4, 3.2, 2.5, 2, 1.6, 1.3, 1, 0.8, 0.6, 0.5, 0.4, 0.3].compactMap {
            ShutterSpeed(seconds: $0)
        }
        + [
            4, 5, 6, 8, 10, 13, 15, 20, 25, 30, 40, 50, 60, 80, 100, 125, 160, 200, 250, 320, 400, 500, 640, 800, 1000,
            1250, 1600, 2000, 2500, 3200, 4000, 5000, 6400, 8000,
        ].compactMap { ShutterSpeed(numerator: 1, denominator: $0) }

    /// The speed of `offered` nearest to `self` in stops; of two as near, the longer (it keeps
    /// the shadows of an HDR set). Nil when `offered` is empty.
    public func nearest(in offered: [ShutterSpeed]) -> ShutterSpeed? {
        offered.min { a, b in
            let (da, db) = (abs(a.stops(from: self)), abs(b.stops(from: self)))
            return abs(da - db) < 1e-9 ? a > b : da < db
        }
    }
}

/// A shutter speed relay could not read.
public enum ShutterSpeedError: Error, Equatable, CustomStringConvertible {
    case unreadable(String)
    case outOfRange(String)

    public var description: String {
        switch self {
        case .unreadable(let text):
            return "'\(text)' is not a shutter speed: write it as \(ShutterSpeed.acceptedForms)"
        case .outOfRange(let text):
            return "'\(text)' is outside the shutter speeds relay sets (1/64000 s to 60 min)"
        }
    }
}
