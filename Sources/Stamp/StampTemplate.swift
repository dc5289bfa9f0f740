import Foundation
import RelayCore

/// The photographer's "stationery pad" (issue 42): credit, copyright, caption and the rest,
/// with variables filled per photo (`{date}`, `{seq}`, `{event}`), written into every photo a
/// destination is sent. Pure: parsed and checked when it is set, rendered per photo.
public struct StampTemplate: Sendable, Equatable, Codable {
    /// The fields written into the photo, in the order `relay stamp show` lists them. Any other
    /// field (`event=Spring Gala`) is a variable the written ones may use (`{event}`).
    public static let writtenFields = ["title", "headline", "caption", "creator", "credit", "copyright", "keywords", "city"]
    /// What a photo gives the template.
    public static let photoVariables = [
        "date", "time", "year", "model", "serial", "name", "seq", "set", "frame", "exposure", "photographer",
    ]

    /// The fields the editor may write per photo (``PhotoCaption``): in its own field, `{caption}`
    /// (`{title}`) is the editor's text, so "{caption} — Photo: {creator}" keeps the template's
    /// words around it; a field without it is replaced by the editor's text when there is one.
    public static let editorFields: Set<String> = ["caption", "title"]

    /// Field name to its text as written (variables unexpanded).
    public private(set) var fields: [String: String]
    /// Goes up by one each time the template is set or cleared: the history records which
    /// version stamped a photo.
    public var version: Int

    /// Checks `fields` (names, variables, the braces); an unknown variable is refused with its
    /// name, as a path template's is.
    public init(fields: [String: String], version: Int = 1) throws(StampError) {
        for (name, text) in fields {
            guard name.range(of: #"^[a-z][a-z0-9_-]{0,31}$"#, options: .regularExpression) != nil else {
                throw .badField(name, reason: "a field name is lower-case letters, digits, '-' or '_'")
            }
            guard !Self.photoVariables.contains(name) else {
                throw .badField(name, reason: "{\(name)} is filled from the photo; pick another name")
            }
            for variable in try Self.variables(in: text, field: name)
            where !Self.photoVariables.contains(variable) && !(Self.editorFields.contains(name) && variable == name) {
                guard variable != name, let other = fields[variable] else {
                    throw .unknownVariable(
                        variable, field: name, known: Self.photoVariables + fields.keys.filter { $0 != name }.sorted())
                }
                guard try Self.variables(in: other, field: variable).allSatisfy(Self.photoVariables.contains) else {
                    throw .badField(name, reason: "{\(variable)} uses a field itself; a field may use photo variables only")
                }
            }
        }
        self.fields = fields
        self.version = version
    }

    private enum CodingKeys: String, CodingKey { case fields, version }

    /// A template read from its file is checked as one being set is: a file edited by hand
    /// with a field that uses itself, or an unknown variable, is refused (and said), never run.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let fields = try container.decode([String: String].self, forKey: .fields)
        let version = try container.decode(Int.self, forKey: .version)
        do {
            try self.init(fields: fields, version: version)
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .fields, in: container, debugDescription: error.description)
        }
    }

    /// This (the event's) template with one photographer's fields over it: each field the
    /// photographer's sets is theirs, the rest the event's; the event's version, which the
    /// history records. The event's template alone when the two do not make a valid one.
    public func overlaid(by photographers: StampTemplate?) -> StampTemplate {
        guard let photographers, !photographers.fields.isEmpty else { return self }
        return (try? StampTemplate(fields: fields.merging(photographers.fields) { $1 }, version: version)) ?? self
    }

    /// The variables `text` names, in order; an unclosed or stray brace is refused.
    static func variables(in text: String, field: String) throws(StampError) -> [String] {
        var names: [String] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}") else { throw .badField(field, reason: "a '{' is not closed") }
            names.append(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        if rest.contains("}") { throw .badField(field, reason: "a '}' has no '{'") }
        return names
    }

    /// No field at all (version 0): what an editor's caption is written with when no template is set.
    public static let empty = StampTemplate(checked: [:], version: 0)

    private init(checked fields: [String: String], version: Int) {
        self.fields = fields
        self.version = version
    }

    /// Whether the template writes anything.
    public var writesAnything: Bool { Self.writtenFields.contains { !(fields[$0] ?? "").isEmpty } }

    /// The template's fields for one photo.
    public func render(_ photo: StampPhoto, timeZone: TimeZone = .current) -> StampValues {
        let time = LocalTime(photo.capturedAt, timeZone: timeZone)
        func expand(_ text: String) -> String {
            var out = ""
            var rest = Substring(text)
            while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
                out += rest[..<open]
                let name = String(rest[rest.index(after: open)..<close])
                out += photo.value(name, time: time) ?? fields[name].map(expand) ?? ""
                rest = rest[rest.index(after: close)...]
            }
            return out + rest
        }
        /// The editor's text in its own field: in place of `{field}`, else in place of the field.
        func editorial(_ field: String, _ text: String?) -> String {
            let own = fields[field] ?? ""
            guard own.contains("{\(field)}") else { return text.flatMap { $0.isEmpty ? nil : $0 } ?? expand(own) }
            let parts = own.components(separatedBy: "{\(field)}").map(expand)
            let joined = parts.joined(separator: text ?? "")
            // Without the editor's words, the template's around them would dangle (" — Photo: Anna").
            return (text ?? "").isEmpty ? joined.trimmingCharacters(in: Self.danglingSeparators) : joined
        }
        var values = StampValues()
        values.title = editorial("title", photo.editor?.title)
        values.headline = fields["headline"].map(expand) ?? ""
        values.caption = editorial("caption", photo.editor?.caption)
        values.creator = fields["creator"].map(expand) ?? ""
        values.credit = fields["credit"].map(expand) ?? ""
        values.copyright = fields["copyright"].map(expand) ?? ""
        values.city = fields["city"].map(expand) ?? ""
        values.keywords = (fields["keywords"].map(expand) ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty }
        values.capturedAt = photo.capturedAt
        return values
    }

    /// What is trimmed from a field whose `{caption}` had no editor's words.
    static let danglingSeparators = CharacterSet.whitespacesAndNewlines.union(CharacterSet(charactersIn: "—–-:|·,;"))

    /// The written fields whose text, with the variables as long as this photo makes them, is
    /// longer than IPTC IIM keeps: each is cut there (in IIM only; XMP keeps it whole).
    public func iimCuts(for photo: StampPhoto) -> [(field: String, bytes: Int, limit: Int)] {
        let values = render(photo)
        return IPTCRecord.limits.compactMap { field, limit in
            let longest = field == "keywords" ? values.keywords.map(\.utf8.count).max() ?? 0 : values.text(of: field).utf8.count
            return longest > limit ? (field, longest, limit) : nil
        }.sorted { $0.field < $1.field }
    }
}

/// What a photo gives a stamp template.
public struct StampPhoto: Sendable, Equatable {
    /// When the shutter fired: the camera's EXIF date where it has one.
    public var capturedAt: Date
    public var model: String
    public var serial: String
    /// The delivered file name.
    public var name: String
    /// The photo's number in the spool (the history's capture number): stable across retries,
    /// so a retried upload carries the same stamp.
    public var sequence: Int
    public var bracket: BracketTag?
    /// Who shot it (a desk's receiver login); empty when nobody was named.
    public var photographer = ""
    /// The editor's caption and title for it, if any.
    public var editor: PhotoCaption?

    public init(capturedAt: Date, model: String = "", serial: String = "", name: String, sequence: Int, bracket: BracketTag? = nil) {
        self.capturedAt = capturedAt
        self.model = model
        self.serial = serial
        self.name = name
        self.sequence = sequence
        self.bracket = bracket
    }

    /// A photo variable's value; nil when `name` is not one (a template field).
    func value(_ name: String, time: LocalTime) -> String? {
        switch name {
        case "date": return time.date
        case "time": return time.time
        case "year": return String(time.year)
        case "model": return model
        case "serial": return serial
        case "name": return self.name
        case "seq": return String(sequence)
        case "set": return bracket.map { String($0.set) } ?? ""
        case "frame": return bracket.map { String($0.frame) } ?? ""
        case "exposure": return bracket?.exposure ?? ""
        case "photographer": return photographer
        default: return nil
        }
    }
}

/// A template's fields for one photo, as they are written.
public struct StampValues: Sendable, Equatable {
    public var title = ""
    public var headline = ""
    public var caption = ""
    public var creator = ""
    public var credit = ""
    public var copyright = ""
    public var city = ""
    public var keywords: [String] = []
    public var capturedAt: Date?

    public init() {}

    /// A written field's text (keywords joined with ", ").
    public func text(of field: String) -> String {
        switch field {
        case "title": title
        case "headline": headline
        case "caption": caption
        case "creator": creator
        case "credit": credit
        case "copyright": copyright
        case "city": city
        case "keywords": keywords.joined(separator: ", ")
        default: ""
        }
    }
}

/// A template that cannot be set, or a photo that cannot be stamped.
public enum StampError: Error, Equatable, Sendable, CustomStringConvertible {
    case badField(String, reason: String)
    case unknownVariable(String, field: String, known: [String])

    public var description: String {
        switch self {
        case .badField(let field, let reason): "stamp field '\(field)': \(reason)"
        case .unknownVariable(let variable, let field, let known):
            "stamp field '\(field)': {\(variable)} is not a variable (use " + known.map { "{\($0)}" }.joined(separator: " ")
                + ", or set a field named \(variable))"
        }
    }
}
