import Foundation
import RelayCore

/// The stamp template kept under RELAY_HOME (`stamp.json`, the event's; `stamps/NAME.json`, one
/// photographer's fields over it), written atomically. A file relay cannot read is never
/// replaced: `relay stamp set` says so and leaves it for the person.
public struct StampStore: Sendable {
    public let file: JSONStateFile<StampTemplate>

    /// The event's template, or with `photographer` that photographer's.
    public init(home: RelayHome, photographer: String? = nil) {
        file = JSONStateFile<StampTemplate>(url: photographer.map { Self.url(home: home, photographer: $0) } ?? home.stampFile)
    }

    /// Where one photographer's fields are kept.
    public static func url(home: RelayHome, photographer: String) -> URL {
        home.root.appendingPathComponent("stamps", isDirectory: true).appendingPathComponent("\(photographer).json")
    }

    /// Whether `name` can name a photographer's stamp (the logins' rule: letters, digits, `-`,
    /// `_`, `.` not first).
    public static func isPhotographerName(_ name: String) -> Bool {
        LoginSpec.isValidName(name)
    }

    /// The template set, nil when none is.
    public func load() throws(StateFileError) -> StampTemplate? {
        try file.load()
    }

    /// Sets `fields` (merged into the template set before; an empty value removes a field) and
    /// returns the new template, one version later.
    @discardableResult
    public func set(_ fields: [String: String]) throws -> StampTemplate {
        let current = try load()
        var merged = current?.fields ?? [:]
        for (name, value) in fields { merged[name] = value.isEmpty ? nil : value }
        let template = try StampTemplate(fields: merged, version: (current?.version ?? 0) + 1)
        try file.save(template)
        return template
    }

    /// Clears the template (the version still goes up, so that history tells the eras apart).
    public func clear() throws {
        let current = try load()
        try file.save(try StampTemplate(fields: [:], version: (current?.version ?? 0) + 1))
    }
}
