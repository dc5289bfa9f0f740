import Foundation

/// Where and how to upload: the Camera2URL request config (`id`, `verb`, `url`, `note`) plus the
/// optional fields a live event needs. Field names match Camera2URL's so its configs import as-is.
public struct RequestConfig: Codable, Sendable, Equatable, Identifiable {
    /// HTTP methods a config may use (Camera2URL's set).
    public enum Verb: String, Codable, Sendable, CaseIterable {
        case GET, POST, PUT, PATCH, DELETE
    }

    /// How the photo travels: inside a multipart form (default) or as the bare JPEG body.
    public enum BodyMode: String, Codable, Sendable, CaseIterable {
        case multipart, raw
    }

    /// How an S3 bucket is named in requests: in the path (`endpoint/BUCKET/KEY`, what
    /// SeaweedFS, MinIO and Ceph expect by default) or in the host name (`BUCKET.endpoint/KEY`,
    /// AWS's own style).
    public enum S3Addressing: String, Codable, Sendable, CaseIterable {
        case path, virtual
    }

    /// How a destination shares the uplink with the others of a run.
    public enum Priority: String, Codable, Sendable, CaseIterable {
        /// Sent as soon as possible (the live gallery).
        case normal
        /// Sent only while nothing of normal priority waits (a full-size backup), so the
        /// gallery stays fast on a shared link.
        case low
    }

    /// What kind of destination a config's URL names.
    public enum Kind: Sendable, Equatable {
        case http, s3, ftp, ftps, sftp, webdav
    }

    public static let defaultFileField = "file"

    public var id: UUID
    public var verb: Verb
    public var url: String
    public var note: String
    /// Extra request headers; values may reference `${NAME}` environment variables.
    public var headers: [String: String]
    /// Extra multipart form fields, sent before the file part.
    public var fields: [String: String]
    /// Name of the multipart file part (`file` when absent).
    public var fileField: String?
    public var body: BodyMode?
    /// Whole-request time limit; unset means "as long as the upload keeps moving".
    public var timeoutSeconds: Double?
    /// Upload bandwidth cap, so the gallery upload leaves room for the venue's other traffic.
    public var maxBytesPerSecond: Int?
    /// What is sent: the original (when absent) or a gallery-sized copy.
    public var rendition: RenditionSetting?
    /// S3: the store's address (`http://127.0.0.1:8333`, `https://s3.eu-central-1.amazonaws.com`);
    /// AWS's regional endpoint when absent.
    public var endpoint: String?
    /// S3: the signing region (`us-east-1` when absent).
    public var region: String?
    /// S3: path-style or virtual-host-style requests (path-style when an endpoint is given,
    /// virtual-host-style on AWS).
    public var addressing: S3Addressing?
    /// Normal when absent.
    public var priority: Priority?
    /// FTP, FTPS, SFTP: the password as a `${NAME}` reference (never the secret itself); with
    /// `sshKey`, the key's passphrase.
    public var password: String?
    /// SFTP: the private key file to log in with.
    public var sshKey: String?
    /// SFTP: the known_hosts file the server's host key must be in (`~/.ssh/known_hosts` when absent).
    public var knownHosts: String?
    /// FTPS: a PEM file of the certificate (or its issuer) the server must present, for a
    /// server with a certificate of its own making; the system's store when absent.
    public var caCertificate: String?
    /// HTTP: where a complete session's manifest is POSTed (JSON), the gallery's sign that the
    /// set is whole; no manifest is sent when absent.
    public var manifestUrl: String?

    public init(
        id: UUID = UUID(), verb: Verb = .POST, url: String, note: String = "",
        headers: [String: String] = [:], fields: [String: String] = [:], fileField: String? = nil,
        body: BodyMode? = nil, timeoutSeconds: Double? = nil, maxBytesPerSecond: Int? = nil,
        rendition: RenditionSetting? = nil, endpoint: String? = nil, region: String? = nil, addressing: S3Addressing? = nil,
        priority: Priority? = nil, password: String? = nil, sshKey: String? = nil, knownHosts: String? = nil,
        caCertificate: String? = nil, manifestUrl: String? = nil
    ) {
        self.id = id
        self.verb = verb
        self.url = url
        self.note = note
        self.headers = headers
        self.fields = fields
        self.fileField = fileField
        self.body = body
        self.timeoutSeconds = timeoutSeconds
        self.maxBytesPerSecond = maxBytesPerSecond
        self.rendition = rendition
        self.endpoint = endpoint
        self.region = region
        self.addressing = addressing
        self.priority = priority
        self.password = password
        self.sshKey = sshKey
        self.knownHosts = knownHosts
        self.caCertificate = caCertificate
        self.manifestUrl = manifestUrl
    }

    /// HTTP unless the URL is `s3://`, `ftp://`, `ftps://`, `sftp://`, `dav://` or `davs://` (its
    /// scheme is checked by `validate`).
    public var kind: Kind {
        let lower = url.trimmingCharacters(in: .whitespaces).lowercased()
        let prefixes = [("s3://", Kind.s3), ("ftp://", .ftp), ("ftps://", .ftps), ("sftp://", .sftp), ("dav://", .webdav), ("davs://", .webdav)]
        for (prefix, kind) in prefixes where lower.hasPrefix(prefix) {
            return kind
        }
        return .http
    }

    /// The rendition to make for this config, nil when originals are sent.
    public var renditionSpec: RenditionSpec? { rendition?.spec }

    public var effectiveFileField: String { fileField ?? Self.defaultFileField }
    public var effectiveBody: BodyMode { body ?? .multipart }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case id, verb, url, note, headers, fields, fileField, body, timeoutSeconds, maxBytesPerSecond, rendition
        case endpoint, region, addressing, priority, password, sshKey, knownHosts, caCertificate, manifestUrl
    }

    /// A field relay does not know is refused, not dropped: a misspelt "hedaers" would otherwise
    /// lose the photographer's headers without a word.
    public init(from decoder: Decoder) throws {
        let all = try decoder.container(keyedBy: AnyCodingKey.self)
        if let unknown = all.allKeys.first(where: { CodingKeys(stringValue: $0.stringValue) == nil }) {
            let known = CodingKeys.allCases.map(\.stringValue)
            throw DecodingError.dataCorruptedError(
                forKey: unknown, in: all,
                debugDescription: "unknown field '\(unknown.stringValue)' (a config has \(known.joined(separator: ", ")))")
        }
        let c = try decoder.container(keyedBy: CodingKeys.self)
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
        fields = try c.decodeIfPresent([String: String].self, forKey: .fields) ?? [:]
        fileField = try c.decodeIfPresent(String.self, forKey: .fileField)
        body = try c.decodeIfPresent(BodyMode.self, forKey: .body)
        timeoutSeconds = try c.decodeIfPresent(Double.self, forKey: .timeoutSeconds)
        maxBytesPerSecond = try c.decodeIfPresent(Int.self, forKey: .maxBytesPerSecond)
        rendition = try c.decodeIfPresent(RenditionSetting.self, forKey: .rendition)
        endpoint = try c.decodeIfPresent(String.self, forKey: .endpoint)
        region = try c.decodeIfPresent(String.self, forKey: .region)
        addressing = try c.decodeIfPresent(S3Addressing.self, forKey: .addressing)
        priority = try c.decodeIfPresent(Priority.self, forKey: .priority)
        password = try c.decodeIfPresent(String.self, forKey: .password)
        sshKey = try c.decodeIfPresent(String.self, forKey: .sshKey)
        knownHosts = try c.decodeIfPresent(String.self, forKey: .knownHosts)
        caCertificate = try c.decodeIfPresent(String.self, forKey: .caCertificate)
        manifestUrl = try c.decodeIfPresent(String.self, forKey: .manifestUrl)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(verb, forKey: .verb)
        try c.encode(url, forKey: .url)
        try c.encode(note, forKey: .note)
        if !headers.isEmpty { try c.encode(headers, forKey: .headers) }
        if !fields.isEmpty { try c.encode(fields, forKey: .fields) }
        try c.encodeIfPresent(fileField, forKey: .fileField)
        try c.encodeIfPresent(body, forKey: .body)
        try c.encodeIfPresent(timeoutSeconds, forKey: .timeoutSeconds)
        try c.encodeIfPresent(maxBytesPerSecond, forKey: .maxBytesPerSecond)
        try c.encodeIfPresent(rendition, forKey: .rendition)
        try c.encodeIfPresent(endpoint, forKey: .endpoint)
        try c.encodeIfPresent(region, forKey: .region)
        try c.encodeIfPresent(addressing, forKey: .addressing)
        try c.encodeIfPresent(priority, forKey: .priority)
        try c.encodeIfPresent(password, forKey: .password)
        try c.encodeIfPresent(sshKey, forKey: .sshKey)
        try c.encodeIfPresent(knownHosts, forKey: .knownHosts)
        try c.encodeIfPresent(caCertificate, forKey: .caCertificate)
        try c.encodeIfPresent(manifestUrl, forKey: .manifestUrl)
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
        copy.fileField = fileField?.trimmingCharacters(in: .whitespacesAndNewlines)
        copy.headers = Dictionary(uniqueKeysWithValues: headers.map {
            ($0.key.trimmingCharacters(in: .whitespaces), $0.value.trimmingCharacters(in: .whitespaces))
        })
        return copy
    }

    /// Checks every field a user can get wrong; the error names the field and the fix.
    public func validate() throws(ConfigError) {
        let url = url.trimmingCharacters(in: .whitespacesAndNewlines)
        if url.isEmpty { throw .missingURL(config: label) }
        // Placeholders are checked first, then the URL with sample values in their place.
        let template = try PathTemplate(url)
        guard let parsed = URLComponents(string: template.render(PathTemplate.sample)), let scheme = parsed.scheme?.lowercased() else {
            throw .invalidURL(url, reason: "it is not a URL")
        }
        guard ["http", "https", "s3", "ftp", "ftps", "sftp", "dav", "davs"].contains(scheme) else {
            throw .invalidURL(url, reason: "only http, https, s3, ftp, ftps, sftp, dav and davs (WebDAV) are supported, not '\(scheme)'")
        }
        guard let host = parsed.host, !host.isEmpty else {
            throw .invalidURL(url, reason: "it has no host name")
        }
        if scheme == "s3" {
            try validateS3(bucket: host, url: url)
        } else if endpoint != nil || region != nil || addressing != nil {
            throw .invalidSetting("endpoint", reason: "endpoint, region and addressing are for s3:// URLs only")
        }
        if ["ftp", "ftps", "sftp"].contains(scheme) {
            try validateFileTransfer(parsed, scheme: scheme, url: url)
        } else if ["dav", "davs"].contains(scheme) {
            try validateWebDAV(parsed, url: url)
        } else if password != nil || sshKey != nil || knownHosts != nil || caCertificate != nil {
            throw .invalidSetting("password", reason: "password, sshKey, knownHosts and caCertificate are for ftp://, ftps://, sftp:// "
                + "and dav(s):// URLs")
        }
        for name in headers.keys where !HeaderSyntax.isValidName(name) {
            throw .invalidHeader(name, reason: "a header name is letters, digits and - only")
        }
        for (name, value) in headers where value.contains("\r") || value.contains("\n") {
            throw .invalidHeader(name, reason: "its value has a line break")
        }
        for name in fields.keys where name.isEmpty || name.contains("\"") || name.contains("\r") || name.contains("\n") {
            throw .invalidField(name, reason: "a field name cannot be empty or hold quotes or line breaks")
        }
        if let fileField, fileField.isEmpty || fileField.contains("\"") || fileField.contains("\r") || fileField.contains("\n") {
            throw .invalidField(fileField, reason: "fileField cannot be empty or hold quotes or line breaks")
        }
        if let timeoutSeconds, !(timeoutSeconds > 0 && timeoutSeconds.isFinite) {
            throw .invalidNumber(field: "timeoutSeconds", value: "\(timeoutSeconds)", reason: "it must be a positive number of seconds")
        }
        if let maxBytesPerSecond, maxBytesPerSecond < 0 {
            throw .invalidNumber(field: "maxBytesPerSecond", value: "\(maxBytesPerSecond)", reason: "it must be 0 (no limit) or more")
        }
        try renditionSpec?.validate()
        if let manifestUrl {
            let lower = manifestUrl.lowercased()
            guard kind == .http else {
                throw .invalidSetting("manifestUrl", reason: "manifestUrl is for http(s) configs; S3 and FTP destinations get "
                    + "PREFIX/SESSION/manifest.json and _DONE instead")
            }
            guard lower.hasPrefix("http://") || lower.hasPrefix("https://"), URLComponents(string: manifestUrl)?.host != nil else {
                throw .invalidURL(manifestUrl, reason: "manifestUrl is an http:// or https:// URL")
            }
        }
    }

    /// FTP and SFTP: secrets only as `${NAME}`, never in the URL; a key only for SFTP; a form's fields refused.
    private func validateFileTransfer(_ parsed: URLComponents, scheme: String, url: String) throws(ConfigError) {
        if parsed.password != nil {
            throw .invalidURL(url, reason: "a password in the URL would be stored in the file; give \"password\": \"${FTP_PASSWORD}\" instead")
        }
        if let password, !password.contains("${") {
            throw .invalidSetting("password", reason: "give it as a ${NAME} reference to the environment (e.g. ${FTP_PASSWORD}), never the password itself")
        }
        if scheme == "sftp" && (parsed.user ?? "").isEmpty {
            throw .invalidURL(url, reason: "an SFTP URL names the user: sftp://USER@HOST/PATH")
        }
        if scheme != "sftp" && (sshKey != nil || knownHosts != nil) {
            throw .invalidSetting("sshKey", reason: "sshKey and knownHosts are for sftp:// URLs")
        }
        if scheme != "ftps" && caCertificate != nil {
            throw .invalidSetting("caCertificate", reason: "caCertificate is for ftps:// URLs")
        }
        if !fields.isEmpty || fileField != nil || body != nil {
            throw .invalidSetting(fields.keys.sorted().first ?? fileField ?? "body",
                                reason: "fields, fileField and body describe an HTTP form; an FTP upload stores the file itself")
        }
    }

    /// WebDAV: a password only as `${NAME}` and only with a user in the URL; a form's fields refused.
    private func validateWebDAV(_ parsed: URLComponents, url: String) throws(ConfigError) {
        if parsed.password != nil {
            throw .invalidURL(url, reason: "a password in the URL would be stored in the file; give \"password\": \"${DAV_PASSWORD}\" instead")
        }
        if let password {
            guard password.contains("${") else {
                throw .invalidSetting("password", reason: "give it as a ${NAME} reference to the environment (e.g. ${DAV_PASSWORD}), never the password itself")
            }
            guard !(parsed.user ?? "").isEmpty else {
                throw .invalidURL(url, reason: "a password needs a user: dav://USER@HOST/PATH")
            }
        }
        if sshKey != nil || knownHosts != nil || caCertificate != nil {
            throw .invalidSetting("sshKey", reason: "sshKey, knownHosts and caCertificate are for sftp:// and ftps:// URLs")
        }
        if !fields.isEmpty || fileField != nil || body != nil {
            throw .invalidSetting(fields.keys.sorted().first ?? fileField ?? "body",
                                reason: "fields, fileField and body describe an HTTP form; a WebDAV upload stores the file itself")
        }
    }

    /// S3 bucket names (AWS's rules: 3–63 lower-case letters, digits, `.` and `-`), the endpoint,
    /// and the fields that only a form upload has.
    private func validateS3(bucket: String, url: String) throws(ConfigError) {
        let allowed = bucket.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "." || $0 == "-" }
        guard (3...63).contains(bucket.count), allowed, !bucket.hasPrefix("."), !bucket.hasPrefix("-") else {
            throw .invalidURL(url, reason: "'\(bucket)' is not a bucket name (3 to 63 lower-case letters, digits, '.' and '-'); write s3://BUCKET/PREFIX")
        }
        if let endpoint {
            guard let parsed = URLComponents(string: endpoint), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""),
                  let host = parsed.host, !host.isEmpty, parsed.path.isEmpty || parsed.path == "/" else {
                throw .invalidURL(endpoint, reason: "an S3 endpoint is http://HOST[:PORT] or https://HOST[:PORT], without a path")
            }
        }
        if let region, region.isEmpty || !region.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-") }) {
            throw .invalidSetting(region, reason: "an S3 region is letters, digits and '-', e.g. us-east-1")
        }
        if !fields.isEmpty || fileField != nil || body != nil {
            throw .invalidSetting(fields.keys.sorted().first ?? fileField ?? "body",
                                reason: "fields, fileField and body describe an HTTP form; an S3 upload stores the file itself")
        }
    }
}

extension RequestConfig {
    /// The config as `relay config show` prints it: values of secret-looking headers written in
    /// the config itself are replaced by `<redacted>`; `${NAME}` references stay, they hold no secret.
    public var redactingSecrets: RequestConfig {
        var copy = self
        for (name, value) in headers where HeaderSyntax.isSecret(name) && !Self.isReferenceOnly(value) {
            copy.headers[name] = "<redacted>"
        }
        return copy
    }

    /// `Bearer ${TOKEN}`: nothing but `${NAME}` references and a scheme word.
    private static func isReferenceOnly(_ value: String) -> Bool {
        let withoutReferences = value.replacingOccurrences(of: #"\$\{[A-Za-z_][A-Za-z0-9_]*\}"#, with: "", options: .regularExpression)
        return value.contains("${") && withoutReferences.trimmingCharacters(in: .whitespaces).split(separator: " ").count <= 1
            && !withoutReferences.contains(where: \.isNumber)
    }
}

/// HTTP header syntax checks (RFC 9110 token characters).
public enum HeaderSyntax {
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.unicodeScalars.allSatisfy { scalar in
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
