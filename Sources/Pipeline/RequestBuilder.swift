import Foundation
import RelayCore
import Spool
import Uploader

/// Turns a request config and a spooled photo into one upload attempt (pure: the environment is
/// passed in), and describes it for the history without secrets.
public enum RequestBuilder {
    /// The attempt for `entry`, whose file (the photo or its rendition) is at `filePath`. `${NAME}` references in header values
    /// are expanded from `environment`; an unset one is an error naming it.
    public static func request(
        for config: RequestConfig, entry: SpoolEntry, filePath: String, environment: [String: String]
    ) throws(ConfigError) -> UploadRequest {
        var headers: [HTTPHeader] = []
        for name in config.headers.keys.sorted() {
            let value = try EnvironmentExpansion.expand(config.headers[name] ?? "", header: name, environment: environment)
            headers.append(HTTPHeader(name: name, value: value))
        }
        let body: UploadBody
        switch config.effectiveBody {
        case .raw:
            body = .raw
        case .multipart:
            body = .multipart(fields: fields(for: config), fileField: config.effectiveFileField, fileName: entry.uploadName)
        }
        return UploadRequest(
            method: config.verb.rawValue, url: config.url, headers: headers, body: body, filePath: filePath,
            idempotencyKey: entry.deliveryKey, timeoutSeconds: config.timeoutSeconds,
            maxBytesPerSecond: config.maxBytesPerSecond.flatMap { $0 > 0 ? $0 : nil })
    }

    /// The multipart text parts: Camera2URL's `note` (only when the trimmed note is not empty),
    /// then the config's extra fields in name order.
    public static func fields(for config: RequestConfig) -> [FormField] {
        var fields: [FormField] = []
        let note = config.note.trimmingCharacters(in: .whitespacesAndNewlines)
        if !note.isEmpty { fields.append(FormField(name: "note", value: note)) }
        for name in config.fields.keys.sorted() {
            fields.append(FormField(name: name, value: config.fields[name] ?? ""))
        }
        return fields
    }

    /// "POST https://… (multipart, file=IMG_1.JPG) Authorization: <redacted>" — for history and
    /// logs. Header values that are secrets, or that come from the environment, are never shown.
    public static func summary(for config: RequestConfig, entry: SpoolEntry) -> String {
        var parts = ["\(config.verb.rawValue) \(config.url)"]
        switch config.effectiveBody {
        case .raw: parts.append("(raw \(entry.uploadName))")
        case .multipart: parts.append("(multipart, \(config.effectiveFileField)=\(entry.uploadName))")
        }
        for name in config.headers.keys.sorted() {
            let value = config.headers[name] ?? ""
            let hidden = HeaderSyntax.isSecret(name) || value.contains("${")
            parts.append("\(name): \(hidden ? "<redacted>" : value)")
        }
        parts.append("Idempotency-Key: \(entry.deliveryKey)")
        return parts.joined(separator: " ")
    }
}
