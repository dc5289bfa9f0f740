/// A command as its help shows it: how it is called, what it is for, and its options in titled
/// sections. Its parser reads the same options, so `relay run --help` cannot leave one out.
struct CommandSpec: Sendable {
    /// The options of one part of a command's help ("RUN OPTIONS"), with notes after them.
    struct Section: Sendable {
        let title: String
        let options: [OptionSpec]
        var notes: [String] = []

        var text: String {
            ([title] + options.map(\.helpText) + notes.map { HelpText.paragraph($0) }).joined(separator: "\n")
        }
    }

    /// `run`, `config`, …
    let name: String
    /// How it is called, each without the leading "relay ".
    let usage: [String]
    /// One line, for the overview.
    let summary: String
    let sections: [Section]
    /// Prose after the sections.
    var notes: [String] = []

    /// Every option the command's parser accepts.
    var options: [OptionSpec] { sections.flatMap(\.options) }

    /// `relay NAME --help`.
    var help: String {
        let head = "usage: " + usage.map { "relay \($0)" }.joined(separator: "\n       ") + "\n\n" + HelpText.paragraph(summary, indent: 0)
        return ([head] + sections.map(\.text) + notes.map { HelpText.paragraph($0, indent: 0) }).joined(separator: "\n\n")
    }

    /// The command's lines in the overview's USAGE.
    var overview: String {
        (usage.map { "  relay \($0)" } + [HelpText.paragraph(summary, indent: 6)]).joined(separator: "\n")
    }
}
