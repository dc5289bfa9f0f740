/// Makes the start of a response body fit for a history entry or an error message: at most
/// `limit` bytes, decoded leniently as UTF-8, control characters and line breaks folded into
/// single spaces, so a hostile or binary body cannot garble a terminal or a JSON log.
public enum ResponseSummary {
    public static let defaultLimit = 500

    public static func make(_ bytes: [UInt8], limit: Int = defaultLimit) -> String {
        let truncated = bytes.count > limit
        let head = bytes.prefix(max(0, limit))
        var text = String(decoding: head, as: UTF8.self)
        if truncated {
            // A multi-byte character cut at the limit decodes as U+FFFD; drop that artefact.
            while text.unicodeScalars.last == "\u{FFFD}" { text.unicodeScalars.removeLast() }
        }
        var folded = String.UnicodeScalarView()
        var lastWasSpace = true
        for scalar in text.unicodeScalars {
            let isSpace = scalar.properties.isWhitespace || scalar.properties.generalCategory == .control
            if isSpace {
                if !lastWasSpace { folded.append(" ") }
                lastWasSpace = true
            } else {
                folded.append(scalar)
                lastWasSpace = false
            }
        }
        var result = String(folded)
        while result.last == " " { result.removeLast() }
        return truncated ? result + "…" : result
    }
}
