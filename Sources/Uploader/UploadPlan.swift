import RelayCore

/// An `UploadRequest` checked and turned into exactly what goes on the wire, without touching
/// the network or the file: the method, the header lines, and how (or whether) the body is sent.
/// Kept pure so that the request rules are tested without a server, and so a request config can
/// be validated when it is written instead of when the first photo fails.
public struct UploadPlan: Sendable, Equatable {
    public enum Body: Sendable, Equatable {
        /// GET, DELETE and the rest but POST, PUT and PATCH: nothing is sent and the file is not read.
        case none
        /// Text parts in order, then the file part, with a safe file name.
        case multipart(fields: [FormField], fileField: String, fileName: String)
        /// The file as the whole body.
        case raw
        /// These bytes as the whole body (the file is not read).
        case inline([UInt8])

        /// Whether the body is read from the request's file.
        public var readsFile: Bool {
            switch self {
            case .raw, .multipart: true
            case .none, .inline: false
            }
        }

        var isInline: Bool {
            if case .inline = self { true } else { false }
        }
    }

    /// Camera2URL's methods, WebDAV's MKCOL, MOVE and PROPFIND, and HEAD (sent without a body;
    /// PROPFIND and HEAD ask whether an earlier attempt landed).
    public static let methods: Set<String> = ["GET", "POST", "PUT", "PATCH", "DELETE", "MKCOL", "MOVE", "PROPFIND", "HEAD"]

    public var method: String
    public var url: String
    /// `Name: value` lines in sending order.
    public var headerLines: [String]
    public var body: Body

    /// Validates `request`; the error says what to fix in the request config.
    public static func make(_ request: UploadRequest) -> Result<UploadPlan, UploadTransportError> {
        func invalid(_ message: String) -> Result<UploadPlan, UploadTransportError> {
            .failure(UploadTransportError(category: .invalidRequest, message: message))
        }
        let method = request.method.uppercased()
        guard methods.contains(method) else {
            return invalid("unsupported method '\(request.method)' (use GET, POST, PUT, PATCH or DELETE)")
        }
        let lowerURL = request.url.lowercased()
        guard lowerURL.hasPrefix("http://") || lowerURL.hasPrefix("https://") else {
            return invalid("URL '\(request.url)' must start with http:// or https://")
        }
        guard !request.url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
            return invalid("URL contains spaces or control characters; percent-encode them")
        }
        guard isFieldValue(request.idempotencyKey) else {
            return invalid("idempotency key contains control characters")
        }

        let body: Body
        let sendsBody = sendsBody(method: method)
        switch request.body {
        case _ where !sendsBody:
            body = .none
        case .raw:
            body = .raw
        case .inline(let bytes):
            body = .inline(bytes)
        case .multipart(let fields, let fileField, let fileName):
            for name in fields.map(\.name) + [fileField] where !isPartName(name) {
                return invalid("form field name '\(name)' is empty or contains quotes or control characters")
            }
            body = .multipart(fields: fields, fileField: fileField, fileName: SafeFileName.make(fileName))
        }

        // Headers relay owns are not taken from the config: a second Idempotency-Key would make
        // the request ambiguous, and a Content-Type on a multipart body would lose the boundary.
        var owned: Set<String> = ["idempotency-key", "expect"]
        if case .multipart = body { owned.insert("content-type") }
        var lines: [String] = []
        var hasContentType = false
        for header in request.headers {
            guard isToken(header.name) else {
                return invalid("header name '\(header.name)' is not a valid HTTP header name")
            }
            guard isFieldValue(header.value) else {
                return invalid("header '\(header.name)' has a line break or control character in its value")
            }
            let lowerName = header.name.lowercased()
            if owned.contains(lowerName) { continue }
            if lowerName == "content-type" { hasContentType = true }
            lines.append("\(header.name): \(header.value)")
        }
        if !request.idempotencyKey.isEmpty {
            lines.append("Idempotency-Key: \(request.idempotencyKey)")
        }
        guard isFieldValue(request.contentType), !request.contentType.isEmpty else {
            return invalid("content type '\(request.contentType)' is empty or has control characters")
        }
        if body == .raw || body.isInline, !hasContentType {
            lines.append("Content-Type: \(request.contentType)")
        }
        // No "Expect: 100-continue": servers that ignore it cost a one-second stall per photo.
        // Not on SigV4-signed requests: libcurl 7.88 signs the emptied header it then does not
        // send, and the store refuses the signature (S3 stores answer 100-continue properly).
        if request.signing == nil { lines.append("Expect:") }
        return .success(UploadPlan(method: method, url: request.url, headerLines: lines, body: body))
    }

    /// Whether requests with this method carry the photo (POST, PUT, PATCH; not GET or DELETE).
    public static func sendsBody(method: String) -> Bool {
        ["POST", "PUT", "PATCH"].contains(method.uppercased())
    }

    /// RFC 9110 token characters.
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty
            && text.unicodeScalars.allSatisfy { scalar in
                switch scalar {
                case "a"..."z", "A"..."Z", "0"..."9": return true
                case "!", "#", "$", "%", "&", "'", "*", "+", "-", ".", "^", "_", "`", "|", "~": return true
                default: return false
                }
            }
    }

    /// Visible characters, spaces and tabs; no CR, LF or other controls (header injection).
    static func isFieldValue(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { $0 == "\t" || ($0.value >= 0x20 && $0.value != 0x7F) }
    }

    /// A name that can sit inside `name="..."` in a Content-Disposition header.
    static func isPartName(_ text: String) -> Bool {
        !text.isEmpty && isFieldValue(text) && !text.contains("\"") && !text.contains("\\")
    }
}
