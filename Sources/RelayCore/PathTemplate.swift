import Foundation

/// Paths made from a photo: `event/{date}/{camera}-{seq}-{name}` becomes
/// `event/2026-11-23/5501234-0042-IMG_0042.JPG`. Used for S3 object keys, FTP paths and HTTP URLs
/// (REST galleries and presigned paths). Pure, so the rules are tested without a server.
///
/// Every value is made safe before it is put in: ASCII letters, digits, `.`, `-` and `_` only,
/// never `.` or `..` alone, so a camera file name cannot add a folder or climb out of one, and
/// the result needs no escaping in a URL, an S3 key or an FTP command.
public struct PathTemplate: Sendable, Equatable {
    /// What a template can say, in the order `relay config add --help` lists them.
    public static let placeholders = [
        "name", "stem", "ext", "date", "time", "camera", "serial", "photographer", "seq", "run", "set", "frame", "exposure",
    ]

    /// What the placeholders stand for, for one photo.
    public struct Values: Sendable, Equatable {
        /// The delivered file name (`IMG_0042.JPG`).
        public var name: String
        /// When the shutter fired (the camera's date, else the file's time).
        public var capturedAt: Date
        /// Which camera or folder the photo came from.
        public var camera: String
        /// The camera's serial number (empty for a folder).
        public var serial: String
        /// The photo's number in this relay's spool.
        public var sequence: Int
        /// The run or session the photo belongs to.
        public var run: String
        /// A bracketing frame's set, frame and speed; nil for any other photo (then `{set}`,
        /// `{frame}` and `{exposure}` are empty: `_` in a path).
        public var bracket: BracketTag?
        /// Who shot it (a desk's receiver login); empty when nobody was named (`_` in a path).
        public var photographer = ""

        public init(
            name: String, capturedAt: Date, camera: String, serial: String, sequence: Int, run: String,
            bracket: BracketTag? = nil
        ) {
            self.name = name
            self.capturedAt = capturedAt
            self.camera = camera
            self.serial = serial
            self.sequence = sequence
            self.run = run
            self.bracket = bracket
        }
    }

    /// A piece of a template: text as written, or a placeholder.
    enum Piece: Sendable, Equatable {
        case text(String)
        case placeholder(String)
    }

    public let text: String
    let pieces: [Piece]

    /// Parses `text`; an unknown placeholder or an unclosed brace is refused with its name, so a
    /// misspelt `{nmae}` is found when the config is added, not at the first photo.
    public init(_ text: String) throws(ConfigError) {
        self.text = text
        var pieces: [Piece] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            if open > rest.startIndex { pieces.append(.text(String(rest[..<open]))) }
            guard let close = rest[open...].firstIndex(of: "}") else {
                throw .invalidTemplate(text, reason: "a '{' is not closed")
            }
            let name = String(rest[rest.index(after: open)..<close])
            guard Self.placeholders.contains(name) else {
                throw .invalidTemplate(
                    text,
                    reason: "{\(name)} is not a placeholder (use "
                        + Self.placeholders.map { "{\($0)}" }.joined(separator: " ") + ")")
            }
            pieces.append(.placeholder(name))
            rest = rest[rest.index(after: close)...]
        }
        if rest.contains("}") { throw .invalidTemplate(text, reason: "a '}' has no '{'") }
        if !rest.isEmpty { pieces.append(.text(String(rest))) }
        self.pieces = pieces
    }

    /// Whether the template says anything about the photo (else a destination adds `/{name}`).
    public var hasPlaceholders: Bool {
        pieces.contains { if case .placeholder = $0 { true } else { false } }
    }

    /// The folder every path shares: the written text before the first placeholder, up to its
    /// last `/` (`gala/{date}/{name}` gives `gala`). A session's manifest and marker go under it.
    public var fixedFolder: String {
        var head = ""
        for piece in pieces {
            guard case .text(let text) = piece else { break }
            head += text
        }
        guard hasPlaceholders else { return head }
        guard let slash = head.lastIndex(of: "/") else { return "" }
        return String(head[..<slash])
    }

    /// Where a named session's manifest and marker go: `fixedFolder/session`.
    public func sessionFolder(_ session: String) -> String {
        let fixed = fixedFolder
        return fixed.isEmpty ? session : fixed + "/" + session
    }

    /// The path for one photo. Dates and times are written in `timeZone` (the machine's own by
    /// default: a photographer thinks in the venue's clock).
    public func render(_ values: Values, timeZone: TimeZone = .current) -> String {
        pieces.map { piece in
            switch piece {
            case .text(let text): text
            case .placeholder(let name): Self.safe(Self.value(name, values, timeZone: timeZone))
            }
        }.joined()
    }

    /// The template filled for a form field's value: the values as they are, not made path-safe
    /// (`{exposure}` is `1/250`).
    public func renderText(_ values: Values, timeZone: TimeZone = .current) -> String {
        pieces.map { piece in
            switch piece {
            case .text(let text): text
            case .placeholder("exposure"): values.bracket?.exposure ?? ""
            case .placeholder(let name): Self.value(name, values, timeZone: timeZone)
            }
        }.joined()
    }

    static func value(_ name: String, _ values: Values, timeZone: TimeZone) -> String {
        let ext = (values.name as NSString).pathExtension
        switch name {
        case "set": return values.bracket.map { String($0.set) } ?? ""
        case "frame": return values.bracket.map { String($0.frame) } ?? ""
        case "exposure": return values.bracket?.exposureInPath ?? ""
        case "name": return values.name
        case "stem": return (values.name as NSString).deletingPathExtension
        case "ext": return ext.lowercased()
        case "date": return day(values.capturedAt, timeZone: timeZone)
        case "time": return format(values.capturedAt, "HHmmss", timeZone)
        case "camera": return values.camera
        case "serial": return values.serial
        case "photographer": return values.photographer
        case "seq": return String(format: "%04d", values.sequence)
        default: return values.run
        }
    }

    /// One path segment's worth of safe characters; never empty, `.` or `..`.
    static func safe(_ value: String) -> String {
        let scalars = value.unicodeScalars.map { scalar -> Character in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", ".", "-", "_": Character(scalar)
            default: "_"
            }
        }
        let text = String(scalars)
        return text.isEmpty || text.allSatisfy({ $0 == "." }) ? "_" : text
    }

    static func format(_ date: Date, _ pattern: String, _ timeZone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.calendar = Calendar(identifier: .gregorian)
        formatter.timeZone = timeZone
        formatter.dateFormat = pattern
        return formatter.string(from: date)
    }
}

extension PathTemplate {
    /// Values for checking a template's shape when a config is added (no photo yet).
    public static let sample = Values(
        name: "IMG_0001.JPG", capturedAt: Date(timeIntervalSince1970: 0), camera: "camera",
        serial: "0", sequence: 1, run: "run")
}

extension PathTemplate {
    /// `2026-11-23`: how `{date}` writes a day.
    public static func day(_ date: Date, timeZone: TimeZone = .current) -> String {
        format(date, "yyyy-MM-dd", timeZone)
    }
}
