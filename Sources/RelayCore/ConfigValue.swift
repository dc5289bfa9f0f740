import Foundation

/// One JSON value of a config field that belongs to a destination kind (an S3 `endpoint`, an
/// HTTP form's `fields`). RequestConfig keeps such fields as written; the kind reads them into
/// a settings value of its own, so a new kind needs no new stored property here.
public enum ConfigValue: Codable, Sendable, Hashable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case object([String: ConfigValue])
    case array([ConfigValue])
    case null

    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let value = try? c.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? c.decode(Double.self) {
            self = .number(value)
        } else if let value = try? c.decode(String.self) {
            self = .string(value)
        } else if let value = try? c.decode([ConfigValue].self) {
            self = .array(value)
        } else {
            self = .object(try c.decode([String: ConfigValue].self))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .string(let value): try c.encode(value)
        case .number(let value): try c.encode(value)
        case .bool(let value): try c.encode(value)
        case .object(let value): try c.encode(value)
        case .array(let value): try c.encode(value)
        case .null: try c.encodeNil()
        }
    }

    /// The text, if this is a string.
    public var text: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// The name → text pairs, if this is an object whose values are all strings.
    public var textPairs: [String: String]? {
        guard case .object(let object) = self else { return nil }
        var pairs: [String: String] = [:]
        for (name, value) in object {
            guard let text = value.text else { return nil }
            pairs[name] = text
        }
        return pairs
    }

    /// What the JSON holds, for messages ("a number", "an object").
    public var shape: String {
        switch self {
        case .string: "text"
        case .number: "a number"
        case .bool: "true or false"
        case .object: "an object"
        case .array: "a list"
        case .null: "null"
        }
    }
}

extension ConfigValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}

extension ConfigValue: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, ConfigValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
