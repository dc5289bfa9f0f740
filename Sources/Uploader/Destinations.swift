import Foundation
import RelayCore

/// The destination kinds relay delivers to, and what every config goes through whatever its kind:
/// validation, the environment check before a run, how it is shown, and making its destination.
public enum Destinations {
    /// Every kind, each one file. A new kind is one line here.
    public static var kinds: [any DestinationKind.Type] {
        [
            HTTPDestination.self,
            S3Destination.self,
            FileTransferDestination.self,
            WebDAVDestination.self,
            WordPressDestination.self,
            ImmichDestination.self,
        ]
    }

    /// Whether a config's destination may be sent a photo while it still downloads.
    public static func acceptsGrowingFiles(_ config: RequestConfig) -> Bool {
        (try? kind(of: config))?.acceptsGrowingFiles(config) ?? false
    }

    /// Every scheme relay takes, in the kinds' order.
    public static var schemes: [String] { kinds.flatMap { $0.schemes } }

    /// Each kind's fields once by option, with the schemes that have it, for `relay config add`.
    public static var fields: [(field: ConfigField, schemes: [String])] {
        var merged: [(field: ConfigField, schemes: [String])] = []
        for kind in kinds {
            for field in kind.fields {
                let schemes = field.only ?? kind.schemes
                if let index = merged.firstIndex(where: { $0.field.option == field.option }) {
                    merged[index].schemes += schemes
                } else {
                    merged.append((field, schemes))
                }
            }
        }
        return merged
    }

    /// The kind of a config's URL scheme.
    public static func kind(of config: RequestConfig) throws(ConfigError) -> any DestinationKind.Type {
        let scheme = config.scheme
        guard let kind = kinds.first(where: { $0.schemes.contains(scheme) }) else {
            let names = schemes
            throw .invalidURL(
                config.url.trimmingCharacters(in: .whitespacesAndNewlines),
                reason:
                    "only \(names.dropLast().joined(separator: ", ")) and \(names.last ?? "") URLs are supported, not '\(scheme)'")
        }
        return kind
    }

    /// Checks a whole config: the common fields, the scheme, that every other field is one of
    /// the kind's and has its form, then the kind's own rules. The error names the field and the fix.
    public static func validate(_ config: RequestConfig) throws(ConfigError) {
        let url = try config.validateCommon()
        let kind = try kind(of: config)
        for name in config.options.keys.sorted() {
            let field = kind.fields.first { $0.name == name }
            guard let field, field.only?.contains(config.scheme) ?? true else {
                let owners = fields.filter { $0.field.name == name }.flatMap(\.schemes)
                guard owners.isEmpty else {
                    throw .invalidSetting(
                        name,
                        reason: "\(name) is for \(owners.map { $0 + "://" }.joined(separator: ", ")) URLs, "
                            + "not \(config.scheme)://")
                }
                let known = RequestConfig.CommonField.allCases.map(\.stringValue) + kind.fields.map(\.name)
                throw .invalidSetting(
                    name, reason: "unknown field '\(name)' (a \(config.scheme):// config has \(known.joined(separator: ", ")))")
            }
            try field.check(config.options[name] ?? .null)
        }
        try kind.validate(config, url: url)
    }

    /// Checks what a run needs from the environment before the first photo moves: `${NAME}`
    /// references in headers and secret fields, readable files, then the kind's own needs.
    public static func checkEnvironment(_ config: RequestConfig, environment: [String: String]) throws(ConfigError) {
        for (name, value) in config.headers {
            _ = try EnvironmentExpansion.expand(value, header: name, environment: environment)
        }
        let kind = try kind(of: config)
        for field in kind.fields {
            guard let value = config.option(field) else { continue }
            switch field.form {
            case .secretReference:
                _ = try EnvironmentExpansion.expand(value, header: field.name, environment: environment)
            case .path:
                // A key or certificate that cannot be read would fail every upload: say so before the first.
                let expanded = expandingHome(value, environment)
                guard FileManager.default.isReadableFile(atPath: expanded) else {
                    throw .invalidSetting(field.name, reason: "cannot read \(expanded): give the path of a file relay can read")
                }
            case .text, .choice, .webURL, .pairs:
                break
            }
        }
        try kind.checkEnvironment(config, environment: environment)
    }

    /// One destination for one upload worker (each owns its own connection).
    public static func make(
        _ config: RequestConfig, environment: [String: String], policy: DeliveryPolicy, cancellation: UploadCancellation
    ) throws(DestinationError) -> any Destination {
        let kind: any DestinationKind.Type
        do { kind = try self.kind(of: config) } catch { throw .config(error) }
        return try kind.make(config, environment: environment, policy: policy, cancellation: cancellation)
    }

    /// The config as `relay config show` prints it, secrets redacted (headers and secret fields).
    public static func shown(_ config: RequestConfig) -> RequestConfig {
        let secret = ((try? kind(of: config))?.fields ?? []).filter { $0.form == .secretReference }.map(\.name)
        return config.redactingSecrets(options: Set(secret))
    }

    /// What the user should know about a valid config (its kind's warnings).
    public static func warnings(_ config: RequestConfig) -> [String] {
        (try? kind(of: config))?.warnings(config) ?? []
    }

    /// Where a config sends, as lists show it.
    public static func target(of config: RequestConfig) -> String {
        (try? kind(of: config))?.target(of: config) ?? config.url
    }

    /// `~/…` in the environment's HOME, as a shell would write it.
    static func expandingHome(_ path: String, _ environment: [String: String]) -> String {
        guard path.hasPrefix("~/") else { return path }
        return (environment["HOME"] ?? NSHomeDirectory()) + path.dropFirst(1)
    }
}
