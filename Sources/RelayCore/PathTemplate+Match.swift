import Foundation

/// A template read backwards: which text of a path a placeholder stands for. A desk reads who
/// shot a photo from the key a field relay's `{photographer}/{name}` wrote (issue 52).
///
/// A path is matched folder by folder, as `render` never puts a `/` in a value: the path has as
/// many folders as the template, each folder's written text is found as written, and each
/// placeholder stands for one character or more. Only a placeholder alone in its folder (beside
/// written text, not another placeholder) is ever read back: `{photographer}-{seq}` could end at
/// any `-` of a name.
extension PathTemplate {
    /// How ``render(_:timeZone:)`` writes a value into a path (`Ana López` is `Ana_L_pez`).
    public static func pathSafe(_ value: String) -> String { safe(value) }

    /// Why a placeholder cannot be read back from a path; nil when it can.
    public func cannotReadBack(_ placeholder: String) -> String? {
        let holding = folders.filter { $0.contains(.placeholder(placeholder)) }
        guard let folder = holding.first else { return "it has no {\(placeholder)}" }
        if holding.count > 1 || folder.filter({ $0 == .placeholder(placeholder) }).count > 1 {
            return "{\(placeholder)} is in it more than once"
        }
        let others = folder.compactMap { piece -> String? in
            if case .placeholder(let name) = piece, name != placeholder { "{\(name)}" } else { nil }
        }
        if !others.isEmpty {
            return "{\(placeholder)} shares a folder with \(others.joined(separator: " ")), so where it ends cannot be told: "
                + "give it a folder of its own, e.g. '{\(placeholder)}/{name}'"
        }
        return nil
    }

    /// The text `placeholder` stands for in `path`, or nil when `path` is not one this template
    /// makes (or the placeholder cannot be read back: ``cannotReadBack(_:)``).
    public func readBack(_ placeholder: String, from path: String) -> String? {
        guard cannotReadBack(placeholder) == nil else { return nil }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count == folders.count else { return nil }
        var found: String?
        for (folder, segment) in zip(folders, segments) {
            if folder.contains(.placeholder(placeholder)) {
                guard let value = Self.strip(folder, from: segment) else { return nil }
                found = value
            } else if !Self.matches(folder[...], segment) {
                return nil
            }
        }
        return found
    }

    /// The pieces of each folder of the template: its written text split at each `/`.
    var folders: [[Piece]] {
        var folders: [[Piece]] = [[]]
        for piece in pieces {
            guard case .text(let text) = piece else {
                folders[folders.count - 1].append(piece)
                continue
            }
            for (index, part) in text.split(separator: "/", omittingEmptySubsequences: false).enumerated() {
                if index > 0 { folders.append([]) }
                if !part.isEmpty { folders[folders.count - 1].append(.text(String(part))) }
            }
        }
        return folders
    }

    /// The text between a folder's written head and tail (one placeholder between them), at least
    /// one character of it.
    private static func strip(_ folder: [Piece], from segment: Substring) -> String? {
        guard let at = folder.firstIndex(where: { if case .placeholder = $0 { true } else { false } }) else { return nil }
        let head = folder[..<at].map(Self.written).joined()
        let tail = folder[(at + 1)...].map(Self.written).joined()
        guard segment.count > head.count + tail.count, segment.hasPrefix(head), segment.hasSuffix(tail) else { return nil }
        return String(segment.dropFirst(head.count).dropLast(tail.count))
    }

    private static func written(_ piece: Piece) -> String {
        if case .text(let text) = piece { text } else { "" }
    }

    /// Whether `segment` is one this folder makes: its text as written, each placeholder one
    /// character or more (tried at every length, as a shell's `*` is).
    private static func matches(_ folder: ArraySlice<Piece>, _ segment: Substring) -> Bool {
        guard let first = folder.first else { return segment.isEmpty }
        switch first {
        case .text(let text):
            return segment.hasPrefix(text) && matches(folder.dropFirst(), segment.dropFirst(text.count))
        case .placeholder:
            var end = segment.startIndex
            while end < segment.endIndex {
                end = segment.index(after: end)
                if matches(folder.dropFirst(), segment[end...]) { return true }
            }
            return false
        }
    }
}
