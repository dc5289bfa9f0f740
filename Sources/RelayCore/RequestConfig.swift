import Foundation

/// Where and how to upload: the Camera2URL request config (`id`, `verb`, `url`, `note`) plus the
/// optional fields every destination has. Field names match Camera2URL's so its configs import
/// as-is. The fields of one destination kind (an HTTP form's `fields`, an S3 `endpoint`, an
/// SFTP `sshKey`) sit beside them in the same JSON object and are kept in `options`; the kind
/// (see Uploader's `Destinations.kinds`) reads and checks them.
public struct RequestConfig: Codable, Sendable, Equatable, Identifiable {
    /// HTTP methods a config may use (Camera2URL's set).
    public enum Verb: String, Codable, Sendable, CaseIterable {
        case GET, POST, PUT, PATCH, DELETE
    }

    /// How a destination shares the uplink with the others of a run.
    public enum Priority: String, Codable, Sendable, CaseIterable {
        /// Sent as soon as possible (the live gallery).
        case normal
        /// Sent only while nothing of normal priority waits (a full-size backup), so the
        /// gallery stays fast on a shared link.
        case low
    }

    public var id: UUID
    public var verb: Verb
    public var url: String
    public var note: String
    /// Extra request headers; values may reference `${NAME}` environment variables.
    public var headers: [String: String]
    /// Whole-request time limit; unset means "as long as the upload keeps moving".
    public var timeoutSeconds: Double?
    /// Upload bandwidth cap, so the gallery upload leaves room for the venue's other traffic.
    public var maxBytesPerSecond: Int?
    /// What is sent: the original (when absent) or a gallery-sized copy.
    public var rendition: RenditionSetting?
    /// Normal when absent.
    public var priority: Priority?
    /// Which photos go here; every one when absent.
    public var send: SendRule?
    /// With `send` selected (or approved-or-selected): the fewest stars a photo's rating needs
    /// to count as selected; 1 when absent.
    public var minRating: Int?
    /// With `send` selected (or approved-or-selected): whether a shot protected on the card counts
    /// as selected; yes when absent.
    public var protectedSelects: Bool?
    /// Whether the stamp template (`relay stamp`) is written into the photos sent here; yes when
    /// absent (`false`: an archive that keeps the camera's original).
    public var stamp: Bool?
    /// The destination kind's own fields, by name, as written in the config.
    public var options: [String: ConfigValue]

    public init(
        id: UUID = UUID(), verb: Verb = .POST, url: String, note: String = "", headers: [String: String] = [:],
        timeoutSeconds: Double? = nil, maxBytesPerSecond: Int? = nil, rendition: RenditionSetting? = nil,
        priority: Priority? = nil, send: SendRule? = nil, options: [String: ConfigValue] = [:]
    ) {
        self.id = id
        self.verb = verb
        self.url = url
        self.note = note
        self.headers = headers
        self.timeoutSeconds = timeoutSeconds
        self.maxBytesPerSecond = maxBytesPerSecond
        self.rendition = rendition
        self.priority = priority
        self.send = send
        self.options = options
    }

    /// The URL's scheme in lower case (`https`, `s3`, `sftp`), empty when it has none.
    public var scheme: String {
        let url = url.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let colon = url.firstIndex(of: ":") else { return "" }
        return url[..<colon].lowercased()
    }

    /// Which photos go here.
    public var sendRule: SendRule { send ?? .all }

    /// The fewest stars that select a photo for this destination.
    public var selectionMinRating: Int { minRating ?? 1 }

    /// What selects a photo for this destination: its stars, and protection unless switched off.
    public var selectionPolicy: SelectionPolicy {
        SelectionPolicy(minRating: selectionMinRating, protectionCounts: protectedSelects ?? true)
    }

    /// The ratings `minRating` may take: one to five stars.
    public static let minRatings = 1...5

    /// The rendition to make for this config, nil when originals are sent.
    public var renditionSpec: RenditionSpec? { rendition?.spec }

    /// The fields every config has; any other field is the destination kind's.
    public enum CommonField: String, CodingKey, CaseIterable {
        case id, verb, url, note, headers, timeoutSeconds, maxBytesPerSecond, rendition, priority, send, minRating, protectedSelects, stamp
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CommonField.self)
        id = try c.decodeIfPresent(UUID.self, forKey: .id) ?? UUID()
        let verbText = try c.decodeIfPresent(String.self, forKey: .verb) ?? Verb.POST.rawValue
        guard let verb = Verb(rawValue: verbText.trimmingCharacters(in: .whitespaces).uppercased()) else {
            throw DecodingError.dataCorruptedError(
                forKey: .verb, in: c,
                debugDescription: "verb '\(verbText)' is not one of \(Verb.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self.verb = verb
        url = try c.decodeIfPresent(String.self, forKey: .url) ?? ""
        note = try c.decodeIfPresent(String.self, forKey: .note) ?? ""
        headers = try c.decodeIfPresent([String: String].self, forKey: .headers) ?? [:]
        timeoutSeconds = try c.decodeIfPresent(Double.self, forKey: .timeoutSeconds)
        maxBytesPerSecond = try c.decodeIfPresent(Int.self, forKey: .maxBytesPerSecond)
        rendition = try c.decodeIfPresent(RenditionSetting.self, forKey: .rendition)
        priority = try c.decodeIfPresent(Priority.self, forKey: .priority)
        send = try c.decodeIfPresent(SendRule.self, forKey: .send)
        minRating = try c.decodeIfPresent(Int.self, forKey: .minRating)
        protectedSelects = try c.decodeIfPresent(Bool.self, forKey: .protectedSelects)
        stamp = try c.decodeIfPresent(Bool.self, forKey: .stamp)
        let all = try decoder.container(keyedBy: AnyCodingKey.self)
        options = [:]
        for key in all.allKeys where CommonField(stringValue: key.stringValue) == nil {
            options[key.stringValue] = try all.decode(ConfigValue.self, forKey: key)
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CommonField.self)
        try c.encode(id, forKey: .id)
        try c.encode(verb, forKey: .verb)
        try c.encode(url, forKey: .url)
        try c.encode(note, forKey: .note)
        if !headers.isEmpty { try c.encode(headers, forKey: .headers) }
        try c.encodeIfPresent(timeoutSeconds, forKey: .timeoutSeconds)
        try c.encodeIfPresent(maxBytesPerSecond, forKey: .maxBytesPerSecond)
        try c.encodeIfPresent(rendition, forKey: .rendition)
        try c.encodeIfPresent(priority, forKey: .priority)
        try c.encodeIfPresent(send, forKey: .send)
        try c.encodeIfPresent(minRating, forKey: .minRating)
        try c.encodeIfPresent(protectedSelects, forKey: .protectedSelects)
        try c.encodeIfPresent(stamp, forKey: .stamp)
        var all = encoder.container(keyedBy: AnyCodingKey.self)
        for (name, value) in options where CommonField(stringValue: name) == nil {
            try all.encode(value, forKey: AnyCodingKey(stringValue: name))
        }
    }

    /// A short label for lists and messages: the note, else the URL.
    public var label: String {
        note.isEmpty ? url : note
    }

    /// This config with surrounding white space removed from its text fields (what `upsert` stores).
    public func trimmed() -> RequestConfig {
        var copy = self
        copy.url = url.trimmingCharacters(in: .whitespacesAndNewlines)
        copy.note = note.trimmingCharacters(in: .whitespacesAndNewlines)
        copy.headers = Dictionary(
            uniqueKeysWithValues: headers.map {
                ($0.key.trimmingCharacters(in: .whitespaces), $0.value.trimmingCharacters(in: .whitespaces))
            })
        for (name, value) in options {
            if let text = value.text { copy.options[name] = .string(text.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        return copy
    }

    /// Checks the fields every config has; the error names the field and the fix. The URL's
    /// scheme and the kind's own fields are checked by the kind (`Destinations.validate`).
    public func validateCommon() throws(ConfigError) -> URLComponents {
        let url = url.trimmingCharacters(in: .whitespacesAndNewlines)
        if url.isEmpty { throw .missingURL(config: label) }
        // Placeholders are checked first, then the URL with sample values in their place.
        let template = try PathTemplate(url)
        guard let parsed = URLComponents(string: template.render(PathTemplate.sample)), parsed.scheme != nil else {
            throw .invalidURL(url, reason: "it is not a URL")
        }
        guard let host = parsed.host, !host.isEmpty else {
            throw .invalidURL(url, reason: "it has no host name")
        }
        for name in headers.keys where !HeaderSyntax.isValidName(name) {
            throw .invalidHeader(name, reason: "a header name is letters, digits and - only")
        }
        for (name, value) in headers where value.contains("\r") || value.contains("\n") {
            throw .invalidHeader(name, reason: "its value has a line break")
        }
        if let timeoutSeconds, !(timeoutSeconds > 0 && timeoutSeconds.isFinite) {
            throw .invalidNumber(field: "timeoutSeconds", value: "\(timeoutSeconds)", reason: "it must be a positive number of seconds")
        }
        if let maxBytesPerSecond, maxBytesPerSecond < 0 {
            throw .invalidNumber(field: "maxBytesPerSecond", value: "\(maxBytesPerSecond)", reason: "it must be 0 (no limit) or more")
        }
        try renditionSpec?.validate()
        if let minRating, !Self.minRatings.contains(minRating) {
            throw .invalidNumber(field: "minRating", value: "\(minRating)", reason: "it is a number of stars, 1 to 5")
        }
        return parsed
    }
}

extension RequestConfig {
    /// The config as `relay config show` prints it: values of secret-looking headers and of the
    /// kind's secret fields (`secretOptions`) written in the config itself are replaced by
    /// `<redacted>`; `${NAME}` references stay, they hold no secret.
    public func redactingSecrets(options secretOptions: Set<String> = []) -> RequestConfig {
        var copy = self
        for (name, value) in headers where HeaderSyntax.isSecret(name) && !Self.isReferenceOnly(value) {
            copy.headers[name] = "<redacted>"
        }
        for name in secretOptions {
            guard let value = options[name], !(value.text.map(Self.isReferenceOnly) ?? false) else { continue }
            copy.options[name] = "<redacted>"
        }
        return copy
    }

    /// `Bearer ${TOKEN}`: nothing but `${NAME}` references and a scheme word.
    public static func isReferenceOnly(_ value: String) -> Bool {
        let withoutReferences = value.replacingOccurrences(of: #"\$\{[A-Za-z_][A-Za-z0-9_]*\}"#, with: "", options: .regularExpression)
        return value.contains("${") && withoutReferences.trimmingCharacters(in: .whitespaces).split(separator: " ").count <= 1
            && !withoutReferences.contains(where: \.isNumber)
    }
}

/// HTTP header syntax checks (RFC 9110 token characters).
public enum HeaderSyntax {
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty
            && name.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "!#$%&'*+-.^_`|~".unicodeScalars.contains(scalar))
            }
    }

    /// Headers whose values are secrets and must never be written to history or logs.
    public static func isSecret(_ name: String) -> Bool {
        let lower = name.lowercased()
        return ["authorization", "proxy-authorization", "cookie", "x-api-key", "api-key"].contains(lower)
            || lower.contains("token") || lower.contains("secret") || lower.contains("password")
            || lower.contains("key") && lower != "idempotency-key"
    }
}
