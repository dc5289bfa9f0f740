import Foundation
import RelayCore

/// Who shot an inbox photo: read from its key's path below the inbox prefix
/// (`--inbox-photographer '{photographer}/{name}'`, a destination's template words) and from its
/// `x-amz-meta-photographer` (pure, so every rule is tested without a store).
///
/// The desk's owner gave the template, so a key that matches it decides. But a field relay's
/// key holds a path-safe name (`Ana López` is `Ana_L_pez`, nobody `_`) while its metadata keeps
/// the name as written: when the metadata's name is the one the key was made from, the metadata's
/// spelling is taken. A key that does not match the template is credited from its metadata.
public struct InboxPhotographer: Sendable, Equatable {
    public let template: PathTemplate

    /// Why a template cannot name photographers, said as what to give instead.
    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public var template: String
        public var reason: String

        public var description: String {
            "--inbox-photographer '\(template)': \(reason)"
        }
    }

    /// Parses the option for an inbox whose keys start with `prefix` (`S3Location.inboxPrefix`).
    public init(_ text: String, prefix: String) throws(Invalid) {
        let example = " (for keys like \(prefix)ana/IMG_0001.JPG, give '{photographer}/{name}')"
        do {
            template = try PathTemplate(text)
        } catch {
            guard case .invalidTemplate(_, let reason) = error else { throw Invalid(template: text, reason: "\(error)") }
            throw Invalid(template: text, reason: reason)
        }
        if let why = template.cannotReadBack("photographer") {
            throw Invalid(template: text, reason: why + (why.hasPrefix("it has no") ? example : ""))
        }
        if text.hasPrefix("/") {
            throw Invalid(template: text, reason: "it is the key below the inbox's prefix, without a leading '/'" + example)
        }
        if !prefix.isEmpty, text.hasPrefix(prefix) {
            throw Invalid(
                template: text,
                reason: "it is the key below the inbox's prefix '\(prefix)': leave the prefix out, e.g. '\(text.dropFirst(prefix.count))'")
        }
    }

    /// What a key's path says about its photographer.
    public enum FromKey: Sendable, Equatable {
        /// The key is not one the template makes.
        case noMatch
        /// The template's `_`: the field relay had nobody to name.
        case nobody
        case named(String)
    }

    /// What the key at `relativeKey` (below the inbox prefix) says.
    public func read(_ relativeKey: String) -> FromKey {
        guard let text = template.readBack("photographer", from: relativeKey) else { return .noMatch }
        return text == "_" ? .nobody : .named(text)
    }

    /// Who is credited, and what the desk says about it.
    public struct Credit: Sendable, Equatable {
        public var photographer: String?
        public var note: Note?

        public init(photographer: String?, note: Note? = nil) {
            // A name typed on a Mac may hold decomposed accents; the spool and templates get one form.
            self.photographer = photographer?.precomposedStringWithCanonicalMapping
            self.note = note
        }
    }

    public enum Note: Sendable, Equatable {
        /// The key is not one the template makes: the metadata's name (or nobody) is taken.
        case keyDoesNotMatch
        /// The key and the metadata name different people: the key's is taken.
        case disagrees(key: String, metadata: String)
    }

    /// The credit for a photo whose key says `fromKey` (nil: no template given) and whose
    /// `x-amz-meta-photographer` is `metadata`.
    public static func credit(fromKey: FromKey?, metadata: String?) -> Credit {
        let metadata = metadata.flatMap { $0.isEmpty ? nil : $0 }
        switch fromKey {
        case nil: return Credit(photographer: metadata)
        case .noMatch: return Credit(photographer: metadata, note: .keyDoesNotMatch)
        case .nobody: return Credit(photographer: metadata)
        case .named(let name):
            guard let metadata else { return Credit(photographer: name) }
            if metadata == name || PathTemplate.pathSafe(metadata) == name { return Credit(photographer: metadata) }
            return Credit(photographer: name, note: .disagrees(key: name, metadata: metadata))
        }
    }
}
