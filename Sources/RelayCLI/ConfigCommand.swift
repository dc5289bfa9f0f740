import CommandLineOptions
import Foundation
import RelayCore
import Spool
import Uploader

/// `relay config add|list|show|use|remove|import`.
enum ConfigCommand {
    // `relay config add`'s options: where and how a photo is sent. They are text: the config's
    // own rules check each value and name the field (exit 4, as a config file's would).
    static let url = Option.text(
        "--url", "URL",
        "where photos go: http(s)://…, s3://BUCKET/PREFIX, ftp:// or ftps:// (explicit TLS), "
            + "sftp://USER@HOST/PATH, dav[s]://[USER@]HOST/PATH (WebDAV), wp[s]://USER@SITE/ (WordPress), immich[s]://HOST/ "
            + "(Immich); placeholders in its path: {name} {stem} {ext} {date} {time} {camera} {serial} {seq} {run} {set} {frame} "
            + "{exposure}"
    )
    static let verb = Option.text(
        "--verb", "VERB", "http(s): the method: GET, POST, PUT, PATCH or DELETE", default: RequestConfig(url: "").verb.rawValue)
    static let note = Option.text("--note", "TEXT", "a name to pick the config by, wherever an ID is asked for")
    static let header = RepeatedOption.texts(
        "--header", "'Name: value'",
        "a request header (http(s), s3, dav(s), wp(s), immich(s)); ${VAR} is read from the environment when sending")
    static let timeout = Option.text("--timeout", "DURATION", "give up on one upload after this long (no limit when not given)")
    static let maxBytesPerSecond = Option.text(
        "--max-bytes-per-second", "SIZE", "send at most this many bytes per second (e.g. 2M), to leave the venue's uplink to others")
    static let priority = Option.text(
        "--priority", "normal|low",
        "when a run delivers to several configs, a low one is sent only while nothing of "
            + "normal priority waits (a full-size backup beside the gallery)")

    static let send = Option.choice(
        "--send",
        "which photos go here: every one, or only those a person approved (relay review, the editor's page), those the "
            + "photographer selected in the camera (a rating in the file), or either; a photo not yet approved is held for "
            + "this destination while the others get it at once",
        SendRule.allCases.map { (word: $0.rawValue, value: $0) }, default: .all)

    static let minRating = Option.integer(
        "--min-rating", "N",
        "with --send selected or approved-or-selected: the fewest stars (1 to 5) a photo's rating needs to count as selected",
        default: RequestConfig(url: "").selectionMinRating, in: RequestConfig.minRatings)

    static let countProtected = Option.choice(
        "--count-protected",
        "with --send selected or approved-or-selected: whether a shot protected on the camera counts as selected (a rating "
            + "in the file always does)",
        [(word: "yes", value: true), (word: "no", value: false)], default: RequestConfig(url: "").selectionPolicy.protectionCounts)

    static let stamp = Option.choice(
        "--stamp",
        "whether the stamp template (relay stamp) is written into the photos sent here; no keeps the camera's original "
            + "(an archive)",
        [(word: "yes", value: true), (word: "no", value: false)], default: true)

    /// Each destination kind's own fields (`Destinations.fields`), as options.
    static let fieldOptions: [(field: ConfigField, single: Option<String>?, repeated: RepeatedOption<String>?)] = Destinations.fields.map {
        field, schemes in
        let help = schemes.joined(separator: ", ") + ": " + field.help
        return field.form == .pairs
            ? (field, nil, .texts(field.option, field.placeholder, help)) : (field, .text(field.option, field.placeholder, help), nil)
    }

    static let addOptions: [OptionSpec] =
        [
            url.spec, verb.spec, note.spec, header.spec, timeout.spec, maxBytesPerSecond.spec, priority.spec, send.spec, minRating.spec,
            countProtected.spec, stamp.spec,
        ]
        + fieldOptions.map { $0.single?.spec ?? $0.repeated!.spec } + RenditionOptions.options

    static let json = Flag("--json", "list, show: the configs as JSON (secrets redacted)")
    /// What `relay config list` and `relay config show` take.
    static let listOptions: [OptionSpec] = [json.spec]

    static let release = Flag(
        "--release", "remove it even though spooled photos wait for it: they are no longer sent there (asks first)")
    static let yes = Flag(DropCommand.yes.name, "with --release: do not ask")
    /// What `relay config remove` takes.
    static let removeOptions: [OptionSpec] = [release.spec, yes.spec]

    static let spec = CommandSpec(
        name: "config",
        usage: ["config add --url URL [options]", "config list|show [ID|NOTE]|use ID|NOTE|remove ID|NOTE|import FILE [--json]"],
        summary: "the upload destinations: add saves one and selects it, use selects another, run uses the selected one",
        sections: [
            .init(title: "CONFIG ADD OPTIONS", options: addOptions),
            .init(title: "CONFIG LIST AND SHOW OPTIONS", options: listOptions),
            .init(title: "CONFIG REMOVE OPTIONS", options: removeOptions),
        ])

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
        case "remove": try remove(rest, home: home, store: store)
        case "import": try importFile(rest, home: home, store: store)
        default: throw CommandFailure(.usage, "unknown config action '\(action)': use add, list, show, use, remove or import")
        }
    }

    private static func add(_ arguments: [String], home: RelayHome, store: ConfigStore) throws {
        let args = try Arguments(arguments, addOptions, command: spec.name)
        if let extra = args.positionals.first { throw CommandFailure(.usage, "unexpected argument '\(extra)'") }
        let note = try args.value(note)
        guard let url = try args.value(url), !url.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw CommandFailure(.config, ConfigError.missingURL(config: note ?? "new").description)
        }
        var config = RequestConfig(url: url, note: note ?? "")
        if let verb = try args.value(verb) {
            guard let parsed = RequestConfig.Verb(rawValue: verb.trimmingCharacters(in: .whitespaces).uppercased()) else {
                throw CommandFailure(.config, ConfigError.invalidVerb(verb).description)
            }
            config.verb = parsed
        }
        for header in try args.values(header) {
            guard let colon = header.firstIndex(of: ":") else {
                throw CommandFailure(.config, ConfigError.invalidHeader(header, reason: "it has no ':'").description)
            }
            let name = header[..<colon].trimmingCharacters(in: .whitespaces)
            config.headers[name] = header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        if let timeout = try args.value(timeout) {
            guard let seconds = DurationText.seconds(timeout) else {
                throw CommandFailure(
                    .config,
                    ConfigError.invalidNumber(field: "timeoutSeconds", value: timeout, reason: "give \(DurationText.forms)").description)
            }
            config.timeoutSeconds = seconds
        }
        if let rate = try args.value(maxBytesPerSecond) {
            guard let bytes = ByteSizeText.bytes(rate), bytes <= Int.max else {
                throw CommandFailure(
                    .config,
                    ConfigError.invalidNumber(
                        field: "maxBytesPerSecond", value: rate, reason: "give bytes per second, \(ByteSizeText.forms)"
                    ).description)
            }
            config.maxBytesPerSecond = Int(bytes)
        }
        config.rendition = try RenditionOptions.setting(args)
        for (field, single, repeated) in fieldOptions {
            if let repeated {
                var pairs: [String: ConfigValue] = [:]
                for pair in try args.values(repeated) {
                    guard let equals = pair.firstIndex(of: "=") else {
                        throw CommandFailure(.config, ConfigError.invalidField(pair, reason: "it has no '='").description)
                    }
                    pairs[String(pair[..<equals])] = .string(String(pair[pair.index(after: equals)...]))
                }
                if !pairs.isEmpty { config.options[field.name] = .object(pairs) }
            } else if let single, let value = try args.value(single) {
                if case .choice = field.form {
                    config.options[field.name] = .string(value.lowercased())
                } else {
                    config.options[field.name] = .string(value)
                }
            }
        }
        if let priority = try args.value(priority) {
            guard let parsed = RequestConfig.Priority(rawValue: priority.lowercased()) else {
                throw CommandFailure(
                    .config, ConfigError.invalidSetting(priority, reason: "priority is normal or low (--priority low)").description)
            }
            config.priority = parsed
        }
        if args.gave(send.spec), let rule = try args.value(send) { config.send = rule }
        if args.gave(minRating.spec) {
            guard config.sendRule.readsSelection else {
                throw CommandFailure(.usage, "--min-rating goes with --send selected or --send approved-or-selected")
            }
            config.minRating = try args.value(minRating)
        }
        if args.gave(stamp.spec) { config.stamp = try args.value(stamp) == false ? false : nil }
        if args.gave(countProtected.spec) {
            guard config.sendRule.readsSelection else {
                throw CommandFailure(.usage, "--count-protected goes with --send selected or --send approved-or-selected")
            }
            config.protectedSelects = try args.value(countProtected)
        }
        try Destinations.validate(config.trimmed())
        try home.createIfNeeded()
        let saved = try store.update { (list: inout ConfigList) throws(ConfigError) -> RequestConfig in
            let stored = list.upsert(config)
            try list.select(stored.id)
            return stored
        }
        print("saved and selected config \(describe(saved))" + (saved.note.isEmpty ? "" : " (\(saved.note))"))
        for warning in Destinations.warnings(saved) { FileHandle.standardError.write(Data("warning: \(warning)\n".utf8)) }
    }

    private static func list(_ arguments: [String], store: ConfigStore) throws {
        let args = try Arguments(arguments, listOptions, command: spec.name)
        let list = try store.load()
        if args.has(json) { return try JSONOutput.print(list.mapConfigs(Destinations.shown)) }
        if list.configs.isEmpty {
            print("no configs yet: relay config add --url https://gallery.example/upload")
            return
        }
        for config in list.configs {
            let mark = config.id == list.selectedID ? "*" : " "
            let note = config.note.isEmpty ? "" : "  \(config.note)"
            print(
                "\(mark) \(config.id.uuidString.prefix(8).lowercased())  \(config.verb.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0)) \(config.url)\(note)"
            )
        }
    }

    private static func show(_ arguments: [String], store: ConfigStore) throws {
        let args = try Arguments(arguments, listOptions, command: spec.name)
        let config = try store.resolve(args.positionals.first)
        try JSONOutput.print(Destinations.shown(config))
    }

    private static func use(_ arguments: [String], store: ConfigStore) throws {
        let chosen = try changeOne(arguments, action: "use", store: store) { list, id throws(ConfigError) in try list.select(id) }
        print("selected config \(describe(chosen))")
    }

    /// Removes a config, unless spooled photos still wait for it: those are named, and only
    /// `--release` (after a yes) lets them go without being sent there.
    private static func remove(_ arguments: [String], home: RelayHome, store: ConfigStore) throws {
        let args = try Arguments(arguments, removeOptions, command: spec.name)
        guard let query = args.positionals.first else {
            throw CommandFailure(.usage, "relay config remove ID|NOTE (see relay config list)")
        }
        let config = try store.load().find(query)
        let id = config.id.uuidString
        if let waiting = Spool.inspect(directory: home.spoolDirectory).waiting.first(where: { $0.id == id }) {
            guard args.has(release) else {
                throw CommandFailure(
                    .usage,
                    DropCommand.describe(waiting) + ". Deliver them first (relay run --config "
                        + "\(id.prefix(8).lowercased()) with your other configs), or remove it anyway: relay config remove \(query) --release"
                )
            }
            try DropCommand.release(id, home: home, confirmed: args.has(yes), action: "relay config remove \(query) --release --yes")
            guard Spool.inspect(directory: home.spoolDirectory).waiting.first(where: { $0.id == id }) == nil else { return }
        }
        let removed = try changeOne([id], action: "remove", store: store) { list, id throws(ConfigError) in try list.remove(id) }
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
        "\(config.id.uuidString.prefix(8).lowercased()): \(Destinations.target(of: config))"
            + (config.sendRule.holds ? " (sends \(config.sendRule.rawValue) photos)" : "")
            + (config.minRating.map { " (selected: \($0) stars or more)" } ?? "")
            + (config.protectedSelects == false ? " (protection does not select)" : "")
            + (config.stamp == false ? " (unstamped: the camera's original)" : "")
    }

    private static func importFile(_ arguments: [String], home: RelayHome, store: ConfigStore) throws {
        guard let path = arguments.first else { throw CommandFailure(.usage, "relay config import FILE (e.g. config.example.json)") }
        let imported = try ConfigImport.read(URL(fileURLWithPath: path), validate: Destinations.validate)
        try home.createIfNeeded()
        let count = try store.update { (list: inout ConfigList) throws(ConfigError) -> Int in
            try ConfigImport.merge(imported, into: &list)
        }
        print("imported \(count) config\(count == 1 ? "" : "s") from \(path)")
    }
}
