import Foundation
import RelayCore

/// One kind of destination (HTTP, S3, FTP/SFTP, WebDAV): the URL schemes it serves, the config
/// fields of its own and their rules, and how to make one. A kind is one file, listed once in
/// `Destinations.kinds`; its fields are then parsed by `relay config add`, checked, shown,
/// redacted and refused for other kinds without any other change.
public protocol DestinationKind {
    /// Lower-case URL schemes whose configs this kind delivers (`s3`; `dav`, `davs`).
    static var schemes: [String] { get }
    /// The config fields this kind has beyond the common ones (`RequestConfig.CommonField`).
    static var fields: [ConfigField] { get }
    /// This kind's own rules, once the common fields and each field's form are known good.
    static func validate(_ config: RequestConfig, url: URLComponents) throws(ConfigError)
    /// What a run needs from the environment beyond `${NAME}` references and readable files
    /// (checked for every kind): an S3 destination's keys.
    static func checkEnvironment(_ config: RequestConfig, environment: [String: String]) throws(ConfigError)
    /// One destination for one upload worker.
    static func make(
        _ config: RequestConfig, environment: [String: String], policy: DeliveryPolicy, cancellation: UploadCancellation
    ) throws(DestinationError) -> any Destination
    /// Where a config sends, as lists show it (`POST https://…` for HTTP, the URL otherwise).
    static func target(of config: RequestConfig) -> String
    /// Whether an upload may start while the photo is still downloading (its body's length is
    /// known up front but not its content, so a kind that sends a checksum cannot).
    static func acceptsGrowingFiles(_ config: RequestConfig) -> Bool
    /// What the user should know about a valid config before relay uses it (a password that
    /// would travel in clear over `wp://`), said by `relay config add`.
    static func warnings(_ config: RequestConfig) -> [String]
}

extension DestinationKind {
    public static func checkEnvironment(_ config: RequestConfig, environment: [String: String]) throws(ConfigError) {}

    public static func target(of config: RequestConfig) -> String { config.url }

    public static func acceptsGrowingFiles(_ config: RequestConfig) -> Bool { false }

    public static func warnings(_ config: RequestConfig) -> [String] { [] }
}

/// One config field of a destination kind: its JSON name, its form (which decides how it is
/// checked, read from the command line and shown) and its `relay config add` option.
public struct ConfigField: Sendable, Equatable {
    public enum Form: Sendable, Equatable {
        /// Any text.
        case text
        /// One of these words.
        case choice([String])
        /// An `http://` or `https://` URL.
        case webURL
        /// A secret, only ever as a `${NAME}` reference to the environment; shown as written
        /// when it is one, redacted otherwise.
        case secretReference
        /// A file relay reads when it runs (`~/` allowed); checked to be readable before the first photo.
        case path
        /// Name → text pairs (`--field name=value`, repeatable).
        case pairs
    }

    public var name: String
    public var form: Form
    /// The `relay config add` option, e.g. `--ssh-key`.
    public var option: String
    /// The option's value as the help shows it, e.g. `FILE`.
    public var placeholder: String
    /// What the option is for, in the help (without the schemes, which are added).
    public var help: String
    /// The schemes of its kind that have this field, when not all do (`sshKey`: sftp only).
    public var only: [String]?

    public init(_ name: String, _ form: Form, option: String, placeholder: String, help: String, only: [String]? = nil) {
        self.name = name
        self.form = form
        self.option = option
        self.placeholder = placeholder
        self.help = help
        self.only = only
    }

    /// Checks a value written for this field; the error names the field and the form it takes.
    public func check(_ value: ConfigValue) throws(ConfigError) {
        if form == .pairs { return try checkPairs(value) }
        guard let text = value.text else {
            throw .invalidSetting(name, reason: "\(name) is text, not \(value.shape)")
        }
        switch form {
        case .text, .path, .pairs:
            if text.isEmpty || text.contains("\r") || text.contains("\n") {
                throw .invalidSetting(name, reason: "\(name) cannot be empty or hold line breaks")
            }
        case .choice(let words):
            guard words.contains(text) else {
                throw .invalidSetting(text, reason: "\(name) is \(words.joined(separator: " or ")) (\(option) \(words[0]))")
            }
        case .webURL:
            let lower = text.lowercased()
            guard lower.hasPrefix("http://") || lower.hasPrefix("https://"), URLComponents(string: text)?.host?.isEmpty == false else {
                throw .invalidURL(text, reason: "\(name) is an http:// or https:// URL")
            }
        case .secretReference:
            guard text.contains("${") else {
                throw .invalidSetting(
                    name,
                    reason: "give it as a ${NAME} reference to the environment (e.g. ${FTP_PASSWORD}), "
                        + "never the \(name) itself")
            }
        }
    }

    /// Name → text pairs with names a form can carry.
    private func checkPairs(_ value: ConfigValue) throws(ConfigError) {
        guard let pairs = value.textPairs else {
            throw .invalidSetting(name, reason: "\(name) is an object of text values, e.g. {\"album\": \"gala\"} (--field album=gala)")
        }
        for key in pairs.keys where key.isEmpty || key.contains("\"") || key.contains("\r") || key.contains("\n") {
            throw .invalidField(key, reason: "a field name cannot be empty or hold quotes or line breaks")
        }
    }
}

extension RequestConfig {
    /// The text of one of the kind's fields (checked by `Destinations.validate`). A field is
    /// asked by its declaration, never by its spelling: a misspelt name does not compile.
    public func option(_ field: ConfigField) -> String? {
        options[field.name]?.text
    }
}
