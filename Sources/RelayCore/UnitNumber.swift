import Foundation

/// The shape both command-line grammars share: a plain decimal number (`12`, `1.5`) followed at
/// once by an optional unit of letters. A sign, an exponent, a second point or a space inside is
/// not a number a photographer types, so it is refused rather than guessed at.
struct UnitNumber: Equatable {
    /// The digits before the point.
    let whole: Substring
    /// The digits after the point, without trailing zeros ("" without a point).
    let fraction: Substring
    /// The unit, lowercased ("" without one).
    let unit: String

    init?(_ text: String) {
        let trimmed = Substring(text.trimmingCharacters(in: .whitespaces))
        let numberEnd = trimmed.firstIndex { !($0.isASCII && ($0.isNumber || $0 == ".")) } ?? trimmed.endIndex
        let parts = trimmed[..<numberEnd].split(separator: ".", omittingEmptySubsequences: false)
        let unit = trimmed[numberEnd...]
        guard (1...2).contains(parts.count), !parts[0].isEmpty, parts.count == 1 || !parts[1].isEmpty,
            unit.allSatisfy({ $0.isASCII && $0.isLetter })
        else { return nil }
        whole = parts[0]
        var fraction = parts.count == 2 ? parts[1] : ""
        while fraction.last == "0" { fraction = fraction.dropLast() }
        self.fraction = fraction
        self.unit = unit.lowercased()
    }

    /// The number as a Double (for durations, where the last binary digit does not matter).
    var value: Double? {
        Double(fraction.isEmpty ? String(whole) : "\(whole).\(fraction)").flatMap { $0.isFinite ? $0 : nil }
    }
}
