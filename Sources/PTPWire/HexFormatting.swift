/// Formats a code as `0x` plus upper-case hex digits padded to `digits`, for log lines.
func ptpHex<T: BinaryInteger>(_ value: T, digits: Int) -> String {
    let text = String(value, radix: 16, uppercase: true)
    let padding = String(repeating: "0", count: max(0, digits - text.count))
    return "0x" + padding + text
}

/// "Name (0xCODE)" for a known code, "0xCODE" otherwise.
func ptpCodeDescription<T: BinaryInteger>(_ value: T, digits: Int, name: String?) -> String {
    if let name { return "\(name) (\(ptpHex(value, digits: digits)))" }
    return ptpHex(value, digits: digits)
}
