import Foundation
import RelayCore

/// `relay config add|list|show|use|remove|import`.
enum ConfigCommand {
    static func run(_ arguments: [String], home: RelayHome) throws {
        guard let action = arguments.first else {
            throw CommandFailure(.usage, "relay config needs an action: add, list, show, use, remove or import")
        }
        let rest = Array(arguments.dropFirst())
        let store = ConfigStore(home: home)
        switch action {
        case "add": try add(rest, home: home, store: store)
        case "list": try list(rest, store: store)
        case "show": try show(rest, store: store)
        case "use": try use(rest, store: store)
        case "remove": try remove(rest, store: store)
        case "import": try importFile(rest, home: home, store: store)
        default: throw CommandFailure(.usage, "unknown config action '\(action)': use add, list, show, use, remove or import")
        }
    }

    private static func add(_ arguments: [String], home: RelayHome, store: ConfigStore) throws {
        let args = try Arguments(arguments, options: [
            "--url", "--verb", "--note", "--header", "--field", "--file-field", "--body", "--timeout", "--max-bytes-per-second",
            "--max-edge", "--quality", "--endpoint", "--region", "--addressing", "--priority", "--password", "--ssh-key", "--known-hosts",
            "--ca-certificate", "--manifest-url",
        ], flags: RenditionOptions.flags)
        if let extra = args.positionals.first { throw CommandFailure(.usage, "unexpected argument '\(extra)'") }
        guard let url = try args.value("--url"), !url.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw CommandFailure(.config, ConfigError.missingURL(config: try args.value("--note") ?? "new").description)
        }
        var config = RequestConfig(url: url, note: try args.value("--note") ?? "")
        if let verb = try args.value("--verb") {
            guard let parsed = RequestConfig.Verb(rawValue: verb.trimmingCharacters(in: .whitespaces).uppercased()) else {
                throw CommandFailure(.config, ConfigError.invalidVerb(verb).description)
            }
            config.verb = parsed
        }
        for header in args.all("--header") {
            guard let colon = header.firstIndex(of: ":") else {
                throw CommandFailure(.config, ConfigError.invalidHeader(header, reason: "it has no ':'").description)
            }
            let name = header[..<colon].trimmingCharacters(in: .whitespaces)
            config.headers[name] = header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        for field in args.all("--field") {
            guard let equals = field.firstIndex(of: "=") else {
                throw CommandFailure(.config, ConfigError.invalidField(field, reason: "it has no '='").description)
            }
            config.fields[String(field[..<equals])] = String(field[field.index(after: equals)...])
        }
        config.fileField = try args.value("--file-field")
        if let body = try args.value("--body") {
            guard let parsed = RequestConfig.BodyMode(rawValue: body.lowercased()) else {
                throw CommandFailure(.config, ConfigError.invalidBody(body).description)
            }
            config.body = parsed
        }
        if let timeout = try args.value("--timeout") {
            guard let seconds = Arguments.parseDuration(timeout) else {
                throw CommandFailure(.config, ConfigError.invalidNumber(field: "timeoutSeconds", value: timeout, reason: "give seconds, e.g. 120").description)
            }
            config.timeoutSeconds = seconds
        }
        if let rate = try args.value("--max-bytes-per-second") {
            guard let bytes = Arguments.parseSize(rate) else {
                throw CommandFailure(.config, ConfigError.invalidNumber(field: "maxBytesPerSecond", value: rate, reason: "give bytes per second, e.g. 2M").description)
            }
            config.maxBytesPerSecond = Int(bytes)
        }
        config.rendition = try RenditionOptions.setting(args)
        config.endpoint = try args.value("--endpoint")
        config.region = try args.value("--region")
        if let addressing = try args.value("--addressing") {
            guard let parsed = RequestConfig.S3Addressing(rawValue: addressing.lowercased()) else {
                throw CommandFailure(.config, ConfigError.invalidSetting(addressing, reason: "addressing is path or virtual (--addressing path)").description)
            }
            config.addressing = parsed
        }
        config.password = try args.value("--password")
        config.sshKey = try args.value("--ssh-key")
        config.knownHosts = try args.value("--known-hosts")
        config.caCertificate = try args.value("--ca-certificate")
        config.manifestUrl = try args.value("--manifest-url")
        if let priority = try args.value("--priority") {
            guard let parsed = RequestConfig.Priority(rawValue: priority.lowercased()) else {
                throw CommandFailure(.config, ConfigError.invalidSetting(priority, reason: "priority is normal or low (--priority low)").description)
            }
            config.priority = parsed
        }
        try config.trimmed().validate()
        try home.createIfNeeded()
        let saved = try store.update { (list: inout ConfigList) throws(ConfigError) -> RequestConfig in
            let stored = list.upsert(config)
            try list.select(stored.id)
            return stored
        }
        print("saved and selected config \(describe(saved))" + (saved.note.isEmpty ? "" : " (\(saved.note))"))
    }

    private static func list(_ arguments: [String], store: ConfigStore) throws {
        let args = try Arguments(arguments, options: [], flags: ["--json"])
        let list = try store.load()
        if args.has("--json") { return try JSONOutput.print(list.redactingSecrets) }
        if list.configs.isEmpty {
            print("no configs yet: relay config add --url https://gallery.example/upload")
            return
        }
        for config in list.configs {
            let mark = config.id == list.selectedID ? "*" : " "
            let note = config.note.isEmpty ? "" : "  \(config.note)"
            print("\(mark) \(config.id.uuidString.prefix(8).lowercased())  \(config.verb.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0)) \(config.url)\(note)")
        }
    }

    private static func show(_ arguments: [String], store: ConfigStore) throws {
        let args = try Arguments(arguments, options: [], flags: ["--json"])
        let config = try store.resolve(args.positionals.first)
        try JSONOutput.print(config.redactingSecrets)
    }

    private static func use(_ arguments: [String], store: ConfigStore) throws {
        let chosen = try changeOne(arguments, action: "use", store: store) { list, id throws(ConfigError) in try list.select(id) }
        print("selected config \(describe(chosen))")
    }

    private static func remove(_ arguments: [String], store: ConfigStore) throws {
        let removed = try changeOne(arguments, action: "remove", store: store) { list, id throws(ConfigError) in try list.remove(id) }
        print("removed config \(describe(removed))")
    }

    /// Finds the config named by the first argument (id, id prefix or note) and applies `change`.
    private static func changeOne(
        _ arguments: [String], action: String, store: ConfigStore,
        _ change: @escaping (inout ConfigList, UUID) throws(ConfigError) -> Void
    ) throws -> RequestConfig {
        guard let query = arguments.first else { throw CommandFailure(.usage, "relay config \(action) ID|NOTE (see relay config list)") }
        return try store.update { (list: inout ConfigList) throws(ConfigError) -> RequestConfig in
            let found = try list.find(query)
            try change(&list, found.id)
            return found
        }
    }

    /// "1a2b3c4d: POST https://…", as lists and confirmations show a config.
    private static func describe(_ config: RequestConfig) -> String {
        "\(config.id.uuidString.prefix(8).lowercased()): \(config.verb.rawValue) \(config.url)"
    }

    private static func importFile(_ arguments: [String], home: RelayHome, store: ConfigStore) throws {
        guard let path = arguments.first else { throw CommandFailure(.usage, "relay config import FILE (e.g. config.example.json)") }
        let imported = try ConfigImport.read(URL(fileURLWithPath: path))
        try home.createIfNeeded()
        let count = try store.update { (list: inout ConfigList) throws(ConfigError) -> Int in
            try ConfigImport.merge(imported, into: &list)
        }
        print("imported \(count) config\(count == 1 ? "" : "s") from \(path)")
    }
}
