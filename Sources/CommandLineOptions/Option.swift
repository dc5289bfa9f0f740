import RelayCore

/// One command-line option with its type, declared once: the parser, the help and the completion
/// read its ``spec``, and a command reads its value typed (`try args.value(RunCommand.grace)`),
/// with the default and the range applied here. No command names an option by a string or
/// repeats its range, and a default printed in help is the value used. The shape of
/// swift-argument-parser's `@Option`, without the package.
///
/// DESIGN: a new option is one `static let` of this type beside its command's others, listed in
/// the command's `CommandSpec` section and read where the command builds its options; rules
/// between options go in that command's `validate`.
public struct Option<Value: Sendable>: Sendable {
    public let spec: OptionSpec
    /// The value when the option is not given (nil: none).
    public let defaultValue: Value?
    /// Reads one given value; the error names the option and says what it takes.
    public let read: @Sendable (String) throws(CommandFailure) -> Value

    public init(spec: OptionSpec, defaultValue: Value?, read: @escaping @Sendable (String) throws(CommandFailure) -> Value) {
        self.spec = spec
        self.defaultValue = defaultValue
        self.read = read
    }

    public var name: String { spec.name }
}

/// An option given any number of times (`--camera A --camera B`), each value read as `Value`.
public struct RepeatedOption<Value: Sendable>: Sendable {
    public let spec: OptionSpec
    public let read: @Sendable (String) throws(CommandFailure) -> Value

    public init(spec: OptionSpec, read: @escaping @Sendable (String) throws(CommandFailure) -> Value) {
        self.spec = spec
        self.read = read
    }

    public var name: String { spec.name }
}

/// An option that is present or not (`--json`).
public struct Flag: Sendable {
    public let spec: OptionSpec

    public init(_ name: String, alias: String? = nil, _ help: String) {
        spec = .flag(name, alias: alias, help)
    }

    public var name: String { spec.name }
}

extension Option {
    /// A value read by `read`, shown in help by `placeholder` (its default as `defaultText`).
    public static func value(
        _ name: String, _ placeholder: String, _ help: String, default value: Value? = nil, defaultText: String? = nil,
        read: @escaping @Sendable (String) throws(CommandFailure) -> Value
    ) -> Self {
        Option(spec: .value(name, placeholder, help, default: defaultText), defaultValue: value, read: read)
    }
}

extension Option where Value == String {
    /// Text taken as written.
    public static func text(_ name: String, _ placeholder: String, _ help: String, default value: String? = nil, alias: String? = nil)
        -> Self
    {
        Option(spec: .value(name, placeholder, help, default: value, alias: alias), defaultValue: value) { $0 }
    }
}

extension Option where Value: FixedWidthInteger {
    /// A whole number within `range`.
    public static func integer(
        _ name: String, _ placeholder: String, _ help: String, default value: Value? = nil, in range: ClosedRange<Value>,
        alias: String? = nil
    ) -> Self {
        Option(spec: .value(name, placeholder, help, default: value.map { "\($0)" }, alias: alias), defaultValue: value) {
            text throws(CommandFailure) in
            guard let number = Value(text), range.contains(number) else {
                throw CommandFailure(.usage, "\(name) '\(text)' must be a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return number
        }
    }
}

extension Option {
    /// A value in one of relay's text grammars (`parse` names the option in its error), shown
    /// in help as `format` writes it.
    private static func grammar(
        _ name: String, _ placeholder: String, _ help: String, default value: Value?, format: (Value) -> String,
        parse: @escaping @Sendable (String, String) throws(CommandLineValueError) -> Value
    ) -> Self {
        Option(spec: .value(name, placeholder, help, default: value.map(format)), defaultValue: value) { text throws(CommandFailure) in
            do throws(CommandLineValueError) {
                return try parse(text, name)
            } catch {
                throw CommandFailure(.usage, error.description)
            }
        }
    }
}

extension Option where Value == Double {
    /// Seconds, in relay's one duration grammar (`DurationText`), within `range`.
    public static func duration(_ name: String, _ help: String, default value: Double? = nil, in range: ClosedRange<Double>) -> Self {
        grammar(name, "DURATION", help, default: value, format: DurationText.format) { text, name throws(CommandLineValueError) in
            try DurationText.parse(text, option: name, in: range)
        }
    }
}

extension Option where Value == Int64 {
    /// Bytes, in relay's one size grammar (`ByteSizeText`: 4G is 4 000 000 000), within `range`.
    public static func size(_ name: String, _ help: String, default value: Int64? = nil, in range: ClosedRange<Int64>) -> Self {
        grammar(name, "SIZE", help, default: value, format: ByteSizeText.format) { text, name throws(CommandLineValueError) in
            try ByteSizeText.parse(text, option: name, in: range)
        }
    }
}

extension Option where Value: Equatable {
    /// One of a few words (`--capture-to card|memory`), each standing for a value; help shows
    /// them as the placeholder and completion offers them.
    public static func choice(
        _ name: String, _ help: String, _ table: [(word: String, value: Value)], default value: Value? = nil
    ) -> Self {
        let spelled = table.map(\.word).joined(separator: "|")
        let defaultText = value.flatMap { value in table.first { $0.value == value }?.word }
        return Option(spec: .value(name, spelled, help, default: defaultText), defaultValue: value) { text throws(CommandFailure) in
            guard let chosen = table.first(where: { $0.word == text }) else {
                throw CommandFailure.badValue(name, text, expected: HelpText.either(table.map(\.word)))
            }
            return chosen.value
        }
    }
}

extension RepeatedOption where Value == String {
    /// Texts taken as written.
    public static func texts(_ name: String, _ placeholder: String, _ help: String) -> Self {
        RepeatedOption(spec: .repeatable(name, placeholder, help)) { $0 }
    }
}
