import Foundation

/// Reading configs from a file for `relay config import`: relay's own `configs.json` /
/// `config.example.json` shape (`{"configs": [...], "selectedID": ...}`), a bare array of configs
/// (a Camera2URL export), or a single config object. Every config is validated before any is
/// saved, so a bad file changes nothing.
public enum ConfigImport {
    public struct Imported: Sendable {
        public var configs: [RequestConfig]
        public var selectedID: UUID?
    }

    /// `validate` checks one config whole (the kind's rules included: Uploader's `Destinations.validate`).
    public static func read(_ url: URL, validate: (RequestConfig) throws(ConfigError) -> Void) throws(ConfigError) -> Imported {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw .importFailed(path: url.path, reason: error.localizedDescription)
        }
        let decoder = JSONCoding.decoder
        let imported: Imported
        do {
            switch try? JSONSerialization.jsonObject(with: data) {
            case let object as [String: Any] where object["configs"] != nil:
                let list = try decoder.decode(ConfigList.self, from: data)
                imported = Imported(configs: list.configs, selectedID: list.selectedID)
            case is [Any]:
                imported = Imported(configs: try decoder.decode([RequestConfig].self, from: data), selectedID: nil)
            case is [String: Any]:
                imported = Imported(configs: [try decoder.decode(RequestConfig.self, from: data)], selectedID: nil)
            default:
                throw ConfigError.importFailed(path: url.path, reason: "it is not JSON")
            }
        } catch let error as ConfigError {
            throw error
        } catch {
            throw .importFailed(path: url.path, reason: JSONCoding.explain(error))
        }
        if imported.configs.isEmpty { throw .importFailed(path: url.path, reason: "it holds no configs") }
        for (index, config) in imported.configs.enumerated() {
            do { try validate(config.trimmed()) } catch {
                throw .importFailed(path: url.path, reason: "config #\(index + 1) (\(config.label)): \(error)")
            }
        }
        return imported
    }

    /// Upserts the imported configs keeping their file order at the front; selects the file's
    /// selected config, or the first imported one when nothing was selected before.
    public static func merge(_ imported: Imported, into list: inout ConfigList) throws(ConfigError) -> Int {
        var stored: [RequestConfig] = []
        for config in imported.configs.reversed() { stored.insert(list.upsert(config), at: 0) }
        if let wanted = imported.selectedID, let index = imported.configs.firstIndex(where: { $0.id == wanted }) {
            try list.select(stored[index].id)
        } else if list.selected == nil, let first = stored.first {
            try list.select(first.id)
        }
        return stored.count
    }
}
