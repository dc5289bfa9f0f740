import Foundation
import RelayCore

/// A small, strict command-line parser over a command's declared options: `--name value`,
/// `--name=value`, repeatable options, flags and positionals. Unknown options are errors (a typo
/// must not be silently ignored); an option not given has its declared default.
struct Arguments {
    private(set) var values: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String] = []
    private let declared: [String: OptionSpec]

    /// Parses `arguments` against `options`; `command` names the help that lists them.
    init(_ arguments: [String], _ options: [OptionSpec], command: String) throws(CommandFailure) {
        var declared: [String: OptionSpec] = [:]
        var spellings: [String: String] = [:]
        for option in options {
            declared[option.name] = option
            spellings[option.name] = option.name
            if let alias = option.alias { spellings[alias] = option.name }
        }
        self.declared = declared
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
            guard let name = spellings[argument], let option = declared[name] else {
                throw CommandFailure(.usage, "unknown option \(argument) (see relay \(command) --help)")
            }
            if option.kind == .flag {
                guard inlineValue == nil else { throw CommandFailure(.usage, "\(name) takes no value") }
                flags.insert(name)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.count else { throw CommandFailure(.usage, "\(name) needs a value") }
                value = arguments[index]
                index += 1
            }
            if option.kind == .value, let earlier = values[name]?.count {
                throw CommandFailure(.usage, "\(name) was given \(earlier + 1) times; give it once")
            }
            values[name, default: []].append(value)
        }
    }

    func has(_ flag: String) -> Bool { flags.contains(flag) }

    /// The values given (never the default): a repeatable option's list, or whether one was given.
    func all(_ option: String) -> [String] { values[option] ?? [] }

    /// The option's value, or its declared default when it was not given.
    func value(_ option: String) -> String? {
        values[option]?.first ?? declared[option]?.defaultValue
    }

    func required(_ option: String, hint: String) throws(CommandFailure) -> String {
        guard let value = value(option), !value.isEmpty else { throw CommandFailure(.usage, "\(option) is required: \(hint)") }
        return value
    }

    func integer(_ option: String, in range: ClosedRange<Int>) throws(CommandFailure) -> Int? {
        guard let text = value(option) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw CommandFailure(.usage, "\(option) '\(text)' must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// Seconds, in relay's one duration grammar (`DurationText`), within `range`.
    func seconds(_ option: String, in range: ClosedRange<Double>) throws(CommandFailure) -> Double? {
        guard let text = value(option) else { return nil }
        do { return try DurationText.parse(text, option: option, in: range) } catch { throw CommandFailure(.usage, error.description) }
    }

    /// Bytes, in relay's one size grammar (`ByteSizeText`: 4G is 4 000 000 000), within `range`.
    func bytes(_ option: String, in range: ClosedRange<Int64>) throws(CommandFailure) -> Int64? {
        guard let text = value(option) else { return nil }
        do { return try ByteSizeText.parse(text, option: option, in: range) } catch { throw CommandFailure(.usage, error.description) }
    }
}
