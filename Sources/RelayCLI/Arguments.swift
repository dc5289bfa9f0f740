import Foundation

/// A small, strict command-line parser: `--name value`, `--name=value`, repeatable options,
/// boolean flags and positionals. Unknown flags are errors (a typo must not be silently ignored).
struct Arguments {
    private(set) var values: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String] = []

    /// Parses `arguments` given the option names that take a value and the boolean flags.
    /// `aliases` maps short names (`-n`) to long ones (`--count`).
    init(_ arguments: [String], options: Set<String>, flags known: Set<String>, aliases: [String: String] = [:]) throws(CommandFailure) {
        var index = 0
        while index < arguments.count {
            var argument = arguments[index]
            index += 1
            if argument == "--" {
                positionals.append(contentsOf: arguments[index...])
                break
            }
            guard argument.hasPrefix("-"), argument.count > 1 else {
                positionals.append(argument)
                continue
            }
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                inlineValue = String(argument[argument.index(after: equals)...])
                argument = String(argument[..<equals])
            }
            argument = aliases[argument] ?? argument
            if options.contains(argument) {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < arguments.count else { throw CommandFailure(.usage, "\(argument) needs a value") }
                    value = arguments[index]
                    index += 1
                }
                values[argument, default: []].append(value)
            } else if known.contains(argument), inlineValue == nil {
                flags.insert(argument)
            } else {
                throw CommandFailure(.usage, "unknown option \(argument) (see relay --help)")
            }
        }
    }

    func has(_ flag: String) -> Bool { flags.contains(flag) }
    func all(_ option: String) -> [String] { values[option] ?? [] }

    /// The option's value when given once; an error when given twice.
    func value(_ option: String) throws(CommandFailure) -> String? {
        let given = all(option)
        if given.count > 1 { throw CommandFailure(.usage, "\(option) was given \(given.count) times; give it once") }
        return given.first
    }

    func required(_ option: String, hint: String) throws(CommandFailure) -> String {
        guard let value = try value(option), !value.isEmpty else { throw CommandFailure(.usage, "\(option) is required: \(hint)") }
        return value
    }

    func integer(_ option: String, in range: ClosedRange<Int>) throws(CommandFailure) -> Int? {
        guard let text = try value(option) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw CommandFailure(.usage, "\(option) '\(text)' must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// Seconds, written `1.5`, `500ms`, `30s`, `2m` or `1h`.
    func seconds(_ option: String, minimum: Double = 0, maximum: Double) throws(CommandFailure) -> Double? {
        guard let text = try value(option) else { return nil }
        guard let seconds = Self.parseDuration(text), seconds >= minimum, seconds <= maximum else {
            throw CommandFailure(.usage, "\(option) '\(text)' is not a duration from \(minimum)s to \(Int(maximum))s (e.g. 1.5, 500ms, 30s, 2m)")
        }
        return seconds
    }

    /// Bytes, written `1000000`, `500K`, `200M` or `4G` (powers of 1024).
    func bytes(_ option: String) throws(CommandFailure) -> Int64? {
        guard let text = try value(option) else { return nil }
        guard let bytes = Self.parseSize(text), bytes > 0 else {
            throw CommandFailure(.usage, "\(option) '\(text)' is not a size (e.g. 500M, 4G)")
        }
        return bytes
    }

    static func parseDuration(_ text: String) -> Double? {
        let lower = text.lowercased().trimmingCharacters(in: .whitespaces)
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        for (suffix, scale) in units where lower.hasSuffix(suffix) {
            guard let number = Double(lower.dropLast(suffix.count)), number.isFinite else { return nil }
            return number * scale
        }
        guard let number = Double(lower), number.isFinite else { return nil }
        return number
    }

    static func parseSize(_ text: String) -> Int64? {
        let upper = text.uppercased().trimmingCharacters(in: .whitespaces)
        let units: [(String, Double)] = [("K", 1024), ("M", 1024 * 1024), ("G", 1024 * 1024 * 1024)]
        for (suffix, scale) in units where upper.hasSuffix(suffix) || upper.hasSuffix(suffix + "B") {
            let digits = upper.hasSuffix("B") ? upper.dropLast(2) : upper.dropLast(1)
            guard let number = Double(digits), number.isFinite, number > 0, number * scale < 9e18 else { return nil }
            return Int64(number * scale)
        }
        return Int64(upper)
    }
}
