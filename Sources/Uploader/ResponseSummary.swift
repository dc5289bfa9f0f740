import Foundation

/// Makes the start of a response body fit for a history entry or an error message: at most
/// `limit` bytes, decoded leniently as UTF-8, control characters and line breaks folded into
/// single spaces, so a hostile or binary body cannot garble a terminal or a JSON log.
/// An HTML error page (Apache's, nginx's, a NAS's) is summarised by its title and its first
/// paragraph, never printed whole.
public enum ResponseSummary {
    public static let defaultLimit = 500

    public static func make(_ bytes: [UInt8], limit: Int = defaultLimit) -> String {
        if let html = htmlSummary(bytes) { return fold(Array(html.utf8), limit: limit) }
        return fold(bytes, limit: limit)
    }

    /// "409 Conflict: Cannot PUT to /dav/a/b.jpg because …" for an HTML page: its title, then
    /// the text of its first paragraph (or, without a title, the first line of its text). Nil
    /// for a body that is not HTML.
    static func htmlSummary(_ bytes: [UInt8]) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        let start = text.drop { $0.isWhitespace }.prefix(256).lowercased()
        guard
            start.hasPrefix("<!doctype html") || start.hasPrefix("<html") || start.hasPrefix("<?xml") && text.lowercased().contains("<html")
        else { return nil }
        let title = element("title", in: text).map(plainText).flatMap { $0.isEmpty ? nil : $0 }
        let paragraph = element("p", in: text).map(plainText).flatMap { $0.isEmpty ? nil : $0 }
        if let title { return paragraph.map { "\(title): \($0)" } ?? title }
        let body = element("body", in: text) ?? text
        return plainText(body).isEmpty ? "an HTML page without text" : plainText(body)
    }

    /// The inside of the first `<name …>…</name>` of `text`, case aside.
    private static func element(_ name: String, in text: String) -> String? {
        let lower = text.lowercased()
        guard let open = lower.range(of: "<\(name)"),
            let openEnd = lower[open.upperBound...].firstIndex(of: ">"),
            let close = lower[openEnd...].range(of: "</\(name)")
        else { return nil }
        let inner = lower.index(after: openEnd)
        return String(text[inner..<close.lowerBound])
    }

    /// Markup without its tags and with the common entities decoded, on one line.
    private static func plainText(_ markup: String) -> String {
        var out = ""
        var inTag = false
        for character in markup {
            if character == "<" {
                inTag = true
                out.append(" ")
                continue
            }
            if character == ">" {
                inTag = false
                continue
            }
            if !inTag { out.append(character) }
        }
        for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&nbsp;", " "), ("&amp;", "&")] {
            out = out.replacingOccurrences(of: entity, with: character)
        }
        return out.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    private static func fold(_ bytes: [UInt8], limit: Int) -> String {
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
