/// One command-line option, declared once: the parser accepts it, the help prints it and a value
/// not given is its default, all from this one declaration, so they cannot drift apart.
public struct OptionSpec: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// `--json`: present or not.
        case flag
        /// `--grace 15s`: a value, given at most once.
        case value
        /// `--camera A --camera B`: a value, as many times as wanted.
        case repeatable
    }

    public let name: String
    /// A short spelling (`-n` for `--count`).
    public let alias: String?
    /// What the value is, in help (`DURATION`); empty for a flag.
    public let placeholder: String
    /// One sentence, about what the option changes.
    public let help: String
    /// The value used when the option is not given, printed in help as "(default …)".
    public let defaultValue: String?
    public let kind: Kind

    public static func flag(_ name: String, alias: String? = nil, _ help: String) -> OptionSpec {
        OptionSpec(name: name, alias: alias, placeholder: "", help: help, defaultValue: nil, kind: .flag)
    }

    public static func value(
        _ name: String, _ placeholder: String, _ help: String, default defaultValue: String? = nil,
        alias: String? = nil
    ) -> OptionSpec {
        OptionSpec(name: name, alias: alias, placeholder: placeholder, help: help, defaultValue: defaultValue, kind: .value)
    }

    public static func repeatable(_ name: String, _ placeholder: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, alias: nil, placeholder: placeholder, help: help, defaultValue: nil, kind: .repeatable)
    }

    /// "  -n, --count N" and its sentence, wrapped, as a help line.
    public var helpText: String {
        let spelled = (alias.map { "\($0), " } ?? "") + name + (placeholder.isEmpty ? "" : " \(placeholder)")
        let sentence = help + (defaultValue.map { " (default \($0))" } ?? "")
        return HelpText.entry(spelled, sentence)
    }
}
