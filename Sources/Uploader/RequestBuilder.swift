import Foundation
import RelayCore

/// Turns an HTTP request config and one photo into one upload attempt (pure: the environment is
/// passed in), and describes it for the history without secrets.
public enum RequestBuilder {
    /// The attempt for `item`. Placeholders in the URL are filled from the photo; `${NAME}`
    /// references in header values are expanded from `environment`, and an unset one is an error
    /// naming it.
    public static func request(
        for config: RequestConfig, item: DeliveryItem, environment: [String: String]
    ) throws(ConfigError) -> UploadRequest {
        let headers = try headers(for: config, environment: environment)
        let settings = HTTPSettings(config)
        let body: UploadBody
        switch settings.body {
        case .raw:
            body = .raw
        case .multipart:
            body = .multipart(fields: fields(for: config, item: item), fileField: settings.fileField, fileName: item.name)
        }
        var request = UploadRequest(
            method: config.verb.rawValue, url: try url(for: config, item: item), headers: headers, body: body,
            filePath: item.filePath, idempotencyKey: item.key, timeoutSeconds: config.timeoutSeconds,
            maxBytesPerSecond: config.maxBytesPerSecond.flatMap { $0 > 0 ? $0 : nil }, contentType: item.contentType)
        request.prefix = item.prefix
        return request
    }

    /// The config's extra headers in name order, `${NAME}` references expanded.
    public static func headers(for config: RequestConfig, environment: [String: String]) throws(ConfigError) -> [HTTPHeader] {
        var headers: [HTTPHeader] = []
        for name in config.headers.keys.sorted() {
            let value = try EnvironmentExpansion.expand(config.headers[name] ?? "", header: name, environment: environment)
            headers.append(HTTPHeader(name: name, value: value))
        }
        return headers
    }

    /// The config's URL with its placeholders filled (a URL without any is sent as written).
    public static func url(for config: RequestConfig, item: DeliveryItem) throws(ConfigError) -> String {
        let template = try PathTemplate(config.url)
        return template.hasPlaceholders ? template.render(item.template) : config.url
    }

    /// The multipart text parts: Camera2URL's `note` (only when the trimmed note is not empty),
    /// then the config's extra fields in name order, their placeholders (`set={set}`) filled from
    /// the photo; a value that is no template is sent as written.
    public static func fields(for config: RequestConfig, item: DeliveryItem) -> [FormField] {
        var fields: [FormField] = []
        let note = config.note.trimmingCharacters(in: .whitespacesAndNewlines)
        if !note.isEmpty { fields.append(FormField(name: "note", value: note)) }
        let extra = HTTPSettings(config).fields
        for name in extra.keys.sorted() {
            let value = extra[name] ?? ""
            let template = try? PathTemplate(value)
            let filled = template.map { $0.hasPlaceholders ? $0.renderText(item.template) : value } ?? value
            fields.append(FormField(name: name, value: filled))
        }
        return fields
    }

    /// "POST https://… (multipart, file=IMG_1.JPG) Authorization: <redacted>" — for history and
    /// logs. Header values that are secrets, or that come from the environment, are never shown.
    public static func summary(for config: RequestConfig, item: DeliveryItem) -> String {
        let url = (try? url(for: config, item: item)) ?? config.url
        var parts = ["\(config.verb.rawValue) \(url)"]
        let settings = HTTPSettings(config)
        switch settings.body {
        case .raw: parts.append("(raw \(item.name))")
        case .multipart: parts.append("(multipart, \(settings.fileField)=\(item.name))")
        }
        parts.append(contentsOf: redactedHeaders(config.headers))
        parts.append("Idempotency-Key: \(item.key)")
        return parts.joined(separator: " ")
    }

    /// `Name: value` for each header, in name order, with secrets and `${…}` values hidden.
    public static func redactedHeaders(_ headers: [String: String]) -> [String] {
        headers.keys.sorted().map { name in
            let value = headers[name] ?? ""
            let hidden = HeaderSyntax.isSecret(name) || value.contains("${")
            return "\(name): \(hidden ? "<redacted>" : value)"
        }
    }
}
