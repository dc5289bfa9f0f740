/// A command as its help shows it: how it is called, what it is for, and its options in titled
/// sections. Its parser reads the same options, so `relay run --help` cannot leave one out.
public struct CommandSpec: Sendable {
    /// The options of one part of a command's help ("RUN OPTIONS"), with notes after them.
    public struct Section: Sendable {
        public let title: String
        public let options: [OptionSpec]
        public var notes: [String] = []

        public init(title: String, options: [OptionSpec], notes: [String] = []) {
            self.title = title
            self.options = options
            self.notes = notes
        }

        public var text: String {
            ([title] + options.map(\.helpText) + notes.map { HelpText.paragraph($0) }).joined(separator: "\n")
        }
    }

    /// `run`, `config`, …
    public let name: String
    /// How it is called, each without the leading "relay ".
    public let usage: [String]
    /// One line, for the overview.
    public let summary: String
    public let sections: [Section]
    /// Prose after the sections.
    public var notes: [String] = []

    public init(name: String, usage: [String], summary: String, sections: [Section], notes: [String] = []) {
        self.name = name
        self.usage = usage
        self.summary = summary
        self.sections = sections
        self.notes = notes
    }

    /// Every option the command's parser accepts.
    public var options: [OptionSpec] { sections.flatMap(\.options) }

    /// `relay NAME --help`.
    public var help: String {
        let head = "usage: " + usage.map { "relay \($0)" }.joined(separator: "\n       ") + "\n\n" + HelpText.paragraph(summary, indent: 0)
        return ([head] + sections.map(\.text) + notes.map { HelpText.paragraph($0, indent: 0) }).joined(separator: "\n\n")
    }

    /// The command's lines in the overview's USAGE.
    public var overview: String {
        (usage.map { "  relay \($0)" } + [HelpText.paragraph(summary, indent: 6)]).joined(separator: "\n")
    }
}
