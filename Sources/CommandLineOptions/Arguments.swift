import Foundation
import RelayCore

/// A small, strict command-line parser over a command's declared options: `--name value`,
/// `--name=value`, repeatable options, flags and positionals. Unknown options are errors (a typo
/// must not be silently ignored). Values are read through each option's typed declaration
/// (``Option``, ``RepeatedOption``, ``Flag``): an option not given has its declared default.
public struct Arguments {
    public private(set) var values: [String: [String]] = [:]
    public private(set) var flags: Set<String> = []
    public private(set) var positionals: [String] = []

    /// Parses `arguments` against `options`; `command` names the help that lists them.
    public init(_ arguments: [String], _ options: [OptionSpec], command: String) throws(CommandFailure) {
        var declared: [String: OptionSpec] = [:]
        var spellings: [String: String] = [:]
        for option in options {
            declared[option.name] = option
            spellings[option.name] = option.name
            if let alias = option.alias { spellings[alias] = option.name }
        }
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

    public func has(_ flag: Flag) -> Bool { flags.contains(flag.name) }

    /// The option's value as given, read by its type; its default when it was not given.
    public func value<Value>(_ option: Option<Value>) throws(CommandFailure) -> Value? {
        guard let text = values[option.name]?.first else { return option.defaultValue }
        return try option.read(text)
    }

    /// Every value given of a repeatable option, each read by its type.
    public func values<Value>(_ option: RepeatedOption<Value>) throws(CommandFailure) -> [Value] {
        var read: [Value] = []
        for text in values[option.name] ?? [] { read.append(try option.read(text)) }
        return read
    }

    /// Whether the option was given on the command line (its default does not count).
    public func gave(_ option: OptionSpec) -> Bool {
        flags.contains(option.name) || !(values[option.name] ?? []).isEmpty
    }

    /// The option's value; a usage error saying `hint` when it is not given.
    public func required<Value>(_ option: Option<Value>, hint: String) throws(CommandFailure) -> Value {
        guard let value = try value(option), (value as? String)?.isEmpty != true else {
            throw CommandFailure(.usage, "\(option.name) is required: \(hint)")
        }
        return value
    }
}
