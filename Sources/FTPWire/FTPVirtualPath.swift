/// A path in a user's virtual folder: what the client sees instead of any path of the machine.
///
/// `/` is the user's own root. Paths the client sends are resolved against the current folder
/// without touching the file system; one that would climb above the root (`..`), or that looks
/// like a host path (`~`, backslashes, drive letters, control characters), is refused rather
/// than clamped, so that the client learns its path is wrong.
public struct FTPVirtualPath: Sendable, Hashable, CustomStringConvertible {
    public private(set) var components: [String]

    public static let root = FTPVirtualPath(components: [])
    /// Deeper than any camera's folder structure.
    public static let maxDepth = 32

    init(components: [String]) {
        self.components = components
    }

    /// Why a path cannot be used.
    public enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        case escapesRoot
        case hostPath
        case badName(String)
        case tooDeep

        public var description: String {
            switch self {
            case .escapesRoot: return "the path leaves your folder"
            case .hostPath: return "the path looks like a path of this machine; paths start at your folder /"
            case .badName(let name): return "'\(name)' is not a usable name"
            case .tooDeep: return "the path is deeper than \(FTPVirtualPath.maxDepth) folders"
            }
        }
    }

    /// `text` resolved against `base` (the current folder). An empty text is `base` itself.
    public static func resolve(_ text: String, from base: FTPVirtualPath) throws(Refusal) -> FTPVirtualPath {
        if text.hasPrefix("~") || text.contains("\\") { throw .hostPath }
        if text.count >= 2, text.dropFirst().first == ":", text.first?.isLetter == true { throw .hostPath }
        var components = text.hasPrefix("/") ? [] : base.components
        for part in text.split(separator: "/", omittingEmptySubsequences: true) {
            switch part {
            case ".": continue
            case "..":
                guard !components.isEmpty else { throw .escapesRoot }
                components.removeLast()
            default:
                guard part.utf8.count <= 255, !part.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                    throw .badName(String(part.prefix(40)))
                }
                components.append(String(part))
            }
        }
        guard components.count <= maxDepth else { throw .tooDeep }
        return FTPVirtualPath(components: components)
    }

    /// The last component (a file's name), empty for the root.
    public var name: String { components.last ?? "" }

    /// The folder holding this path (the root's parent is the root).
    public var parent: FTPVirtualPath { FTPVirtualPath(components: Array(components.dropLast())) }

    public var description: String { "/" + components.joined(separator: "/") }
}
