import Foundation

/// `configs.json` under the relay home: load, change, save atomically.
///
/// Every change is a load–modify–save of the whole file, so two `relay config` commands never
/// leave a half-written file; a file that does not parse is reported and never overwritten, with
/// how to restore the last good copy kept beside it.
public struct ConfigStore: Sendable {
    public let file: JSONStateFile<ConfigList>

    public init(home: RelayHome) {
        file = JSONStateFile(url: home.configsFile, keepsLastGood: true)
    }

    /// The saved configs (empty when the file does not exist yet).
    public func load() throws(StateFileError) -> ConfigList {
        try file.load() ?? ConfigList()
    }

    /// Loads, applies `change`, validates nothing itself, and saves.
    @discardableResult
    public func update<T>(_ change: (inout ConfigList) throws(ConfigError) -> T) throws -> T {
        var list = try load()
        let result = try change(&list)
        try file.save(list)
        return result
    }

    /// The config to upload with: the one named by `query` (id, id prefix or note), else the selected one.
    public func resolve(_ query: String?) throws -> RequestConfig {
        let list = try load()
        if let query { return try list.find(query) }
        guard let selected = list.selected else { throw ConfigError.noneSelected }
        return selected
    }
}
