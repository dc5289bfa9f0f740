import Foundation

/// The saved request configs, newest or most recently re-added first, with one selected default.
///
/// Pure value: the rules of `upsert`, `select` and `remove` live here so that they are tested
/// without files; ``ConfigStore`` loads and saves it.
public struct ConfigList: Codable, Sendable, Equatable {
    public private(set) var configs: [RequestConfig]
    public private(set) var selectedID: UUID?

    public init(configs: [RequestConfig] = [], selectedID: UUID? = nil) {
        self.configs = configs
        self.selectedID = selectedID
    }

    /// The list with each config changed by `transform` (e.g. redacted for `relay config list --json`).
    public func mapConfigs(_ transform: (RequestConfig) -> RequestConfig) -> ConfigList {
        ConfigList(configs: configs.map(transform), selectedID: selectedID)
    }

    /// The selected config, if any.
    public var selected: RequestConfig? {
        configs.first { $0.id == selectedID }
    }

    /// Adds `config` (trimmed) at the front, or, when a config with the same verb, URL and note
    /// exists, updates that one and moves it to the front (keeping its id). A config with the
    /// same id is replaced, so ids stay unique. Returns the stored config.
    @discardableResult
    public mutating func upsert(_ config: RequestConfig) -> RequestConfig {
        var incoming = config.trimmed()
        if let index = configs.firstIndex(where: {
            $0.verb == incoming.verb && $0.url == incoming.url && $0.note == incoming.note
        }) {
            incoming.id = configs[index].id
            configs.remove(at: index)
        } else if let index = configs.firstIndex(where: { $0.id == incoming.id }) {
            // Same id, new verb/URL/note: an edited version of that config (re-import) replaces it.
            configs.remove(at: index)
        }
        configs.insert(incoming, at: 0)
        return incoming
    }

    /// Makes the config with `id` the default.
    public mutating func select(_ id: UUID) throws(ConfigError) {
        guard configs.contains(where: { $0.id == id }) else { throw .notFound(id.uuidString) }
        selectedID = id
    }

    /// Removes the config with `id`; when it was selected, the first remaining one becomes the default.
    public mutating func remove(_ id: UUID) throws(ConfigError) {
        guard let index = configs.firstIndex(where: { $0.id == id }) else { throw .notFound(id.uuidString) }
        configs.remove(at: index)
        if selectedID == id { selectedID = configs.first?.id }
    }

    /// Finds a config by full id, unique id prefix (as `relay config list` shows), or note.
    public func find(_ query: String) throws(ConfigError) -> RequestConfig {
        let needle = query.trimmingCharacters(in: .whitespaces)
        if let exact = configs.first(where: { $0.id.uuidString.caseInsensitiveCompare(needle) == .orderedSame }) {
            return exact
        }
        let byPrefix =
            needle.count >= 4
            ? configs.filter { $0.id.uuidString.lowercased().hasPrefix(needle.lowercased()) } : []
        let byNote = configs.filter { !$0.note.isEmpty && $0.note.caseInsensitiveCompare(needle) == .orderedSame }
        let matches = byPrefix.isEmpty ? byNote : byPrefix
        if matches.count == 1 { return matches[0] }
        if matches.isEmpty { throw .notFound(query) }
        throw .ambiguous(query, matches: matches.map { String($0.id.uuidString.prefix(8)) })
    }
}
