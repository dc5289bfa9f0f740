import Foundation

/// Where relay keeps its state: `configs.json`, `history.json`, `cameras.json`, `review.jsonl`, `seen/` and `spool/`.
///
/// `$RELAY_HOME` wins, then `$XDG_STATE_HOME/relay`, then `~/.local/state/relay`, so that tests and
/// several relays on one machine can each have their own state by setting one variable.
public struct RelayHome: Sendable, Equatable {
    public let root: URL

    public init(root: URL) {
        self.root = root
    }

    /// Resolves the state folder from the environment (see the type's documentation).
    public static func resolve(environment: [String: String] = ProcessInfo.processInfo.environment) -> RelayHome {
        if let explicit = environment["RELAY_HOME"], !explicit.isEmpty {
            return RelayHome(root: URL(fileURLWithPath: explicit, isDirectory: true))
        }
        if let xdg = environment["XDG_STATE_HOME"], !xdg.isEmpty {
            return RelayHome(root: URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("relay", isDirectory: true))
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return RelayHome(
            root: URL(fileURLWithPath: home, isDirectory: true)
                .appendingPathComponent(".local/state/relay", isDirectory: true))
    }

    public var configsFile: URL { root.appendingPathComponent("configs.json") }
    public var historyFile: URL { root.appendingPathComponent("history.json") }
    public var camerasFile: URL { root.appendingPathComponent("cameras.json") }
    /// The last timed capture run, for `relay capture --resume`.
    public var captureFile: URL { root.appendingPathComponent("capture.json") }
    public var seenDirectory: URL { root.appendingPathComponent("seen", isDirectory: true) }
    public var spoolDirectory: URL { root.appendingPathComponent("spool", isDirectory: true) }
    /// Every decision on a held photo (`relay review`, the editor's page), one JSON line each.
    public var reviewFile: URL { root.appendingPathComponent("review.jsonl") }
    /// The credit and caption template (`relay stamp`).
    public var stampFile: URL { root.appendingPathComponent("stamp.json") }

    /// Creates the state folder (mode 0700: it may hold tokens in configs) if it is missing.
    public func createIfNeeded() throws(StateFileError) {
        try StateDirectory.create(root)
    }
}

/// Creating state folders with private permissions, each synced into its parent (``Durable``),
/// reporting failures as ``StateFileError``.
public enum StateDirectory {
    public static func create(_ url: URL) throws(StateFileError) {
        do {
            try Durable.makeFolder(url)
        } catch {
            throw .writeFailed(path: url.path, reason: error.description)
        }
    }
}
