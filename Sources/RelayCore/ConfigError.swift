import Foundation

/// A request config that cannot be used as given. Each message names the field and the fix.
public enum ConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    case missingURL(config: String)
    case invalidURL(String, reason: String)
    case invalidVerb(String)
    case invalidHeader(String, reason: String)
    /// A multipart form field (`fields`, `fileField`): the message shows how to write one.
    case invalidField(String, reason: String)
    /// Any other config setting that cannot be used as given, with the reason.
    case invalidSetting(String, reason: String)
    case invalidNumber(field: String, value: String, reason: String)
    case unknownEnvironmentVariable(name: String, header: String)
    case notFound(String)
    case ambiguous(String, matches: [String])
    case noneSelected
    case importFailed(path: String, reason: String)
    case invalidTemplate(String, reason: String)
    case missingCredentials(variable: String, config: String)

    public var description: String {
        switch self {
        case .missingURL(let config):
            return "config '\(config)' has no URL: relay config add --url https://gallery.example/upload"
        case .invalidURL(let url, let reason):
            return
                "url '\(url)' cannot be used: \(reason). Give a full address, e.g. --url https://gallery.example/upload or --url s3://BUCKET/PREFIX"
        case .invalidVerb(let verb):
            return "verb '\(verb)' is not supported: use one of GET, POST, PUT, PATCH, DELETE (e.g. --verb POST)"
        case .invalidHeader(let header, let reason):
            return "header '\(header)' is invalid: \(reason). Write it as --header 'Name: value'"
        case .invalidField(let field, let reason):
            return "field '\(field)' is invalid: \(reason). Write it as --field name=value"
        case .invalidSetting(let setting, let reason):
            return "'\(setting)' cannot be used: \(reason)"
        case .invalidNumber(let field, let value, let reason):
            return "\(field) '\(value)' is invalid: \(reason)"
        case .unknownEnvironmentVariable(let name, let header):
            return "header '\(header)' uses ${\(name)}, which is not set: export \(name)=… before running relay, or change the header"
        case .notFound(let query):
            return "no config matches '\(query)': see relay config list"
        case .ambiguous(let query, let matches):
            return "'\(query)' matches several configs (\(matches.joined(separator: ", "))): give more of the id"
        case .noneSelected:
            return "no config is selected: relay config add --url https://gallery.example/upload (or relay config use ID)"
        case .importFailed(let path, let reason):
            return "cannot import \(path): \(reason)"
        case .invalidTemplate(let template, let reason):
            return "path template '\(template)' is invalid: \(reason)"
        case .missingCredentials(let variable, let config):
            return
                "config '\(config)' needs \(variable) in the environment (credentials are never stored in the config): export \(variable)=… before running relay"
        }
    }
}
