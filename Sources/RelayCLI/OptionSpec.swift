/// One command-line option, declared once: the parser accepts it, the help prints it and a value
/// not given is its default, all from this one declaration, so they cannot drift apart.
struct OptionSpec: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// `--json`: present or not.
        case flag
        /// `--grace 15s`: a value, given at most once.
        case value
        /// `--camera A --camera B`: a value, as many times as wanted.
        case repeatable
    }

    let name: String
    /// A short spelling (`-n` for `--count`).
    let alias: String?
    /// What the value is, in help (`DURATION`); empty for a flag.
    let placeholder: String
    /// One sentence, about what the option changes.
    let help: String
    /// The value used when the option is not given, printed in help as "(default …)".
    let defaultValue: String?
    let kind: Kind

    static func flag(_ name: String, alias: String? = nil, _ help: String) -> OptionSpec {
        OptionSpec(name: name, alias: alias, placeholder: "", help: help, defaultValue: nil, kind: .flag)
    }

    static func value(
        _ name: String, _ placeholder: String, _ help: String, default defaultValue: String? = nil,
        alias: String? = nil
    ) -> OptionSpec {
        OptionSpec(name: name, alias: alias, placeholder: placeholder, help: help, defaultValue: defaultValue, kind: .value)
    }

    static func repeatable(_ name: String, _ placeholder: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, alias: nil, placeholder: placeholder, help: help, defaultValue: nil, kind: .repeatable)
    }

    /// "  -n, --count N" and its sentence, wrapped, as a help line.
    var helpText: String {
        let spelled = (alias.map { "\($0), " } ?? "") + name + (placeholder.isEmpty ? "" : " \(placeholder)")
        let sentence = help + (defaultValue.map { " (default \($0))" } ?? "")
        return HelpText.entry(spelled, sentence)
    }
}
