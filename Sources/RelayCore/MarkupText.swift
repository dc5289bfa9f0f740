/// Text as XML or HTML character data or a quoted attribute's value: the five characters that
/// could end it or start markup, as entities. One rule for the stamp's XMP and a WordPress gallery.
public enum MarkupText {
    public static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(character)
            }
        }
        return out
    }
}
