import Foundation

/// The layout of relay's help: a term in the first column and its text wrapped beside it, so every
/// command's help reads the same however its options were declared.
public enum HelpText {
    /// Where an option's sentence starts.
    public static let column = 27
    /// The widest line help prints.
    public static let width = 110

    /// `term` indented by two, then `text` from `column` on (on the next line when the term is
    /// too long), wrapped at `width`.
    public static func entry(_ term: String, _ text: String) -> String {
        var first = "  " + term
        var lines: [String] = []
        if first.count + 2 > column {
            lines.append(first)
            first = ""
        }
        let wrapped = wrap(text, width: width - column)
        for (index, line) in wrapped.enumerated() {
            let lead = index == 0 && !first.isEmpty ? first : ""
            lines.append(lead.padding(toLength: column, withPad: " ", startingAt: 0) + line)
        }
        return lines.joined(separator: "\n")
    }

    /// `text` as indented lines of at most `width` characters (a longer word stays whole).
    public static func paragraph(_ text: String, indent: Int = 2) -> String {
        wrap(text, width: width - indent).map { String(repeating: " ", count: indent) + $0 }.joined(separator: "\n")
    }

    /// "a, b or c".
    public static func either(_ words: [String]) -> String {
        guard let last = words.last, words.count > 1 else { return words.first ?? "" }
        return words.dropLast().joined(separator: ", ") + " or " + last
    }

    public static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}
