import Foundation

/// A JSON value, for building event objects field by field (Foundation's encoder does the
/// escaping and number formatting).
public enum JSONValue: Sendable, Equatable, Encodable {
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([String: JSONValue])

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value.isFinite ? value : 0)
        case .bool(let value): try container.encode(value)
        case .null: try container.encodeNil()
        case .array(let values): try container.encode(values)
        case .object(let fields): try container.encode(fields)
        }
    }
}

extension JSONValue {
    init(_ value: String?) { self = value.map(JSONValue.string) ?? .null }
    init(_ value: Int?) { self = value.map { .int(Int64($0)) } ?? .null }
    init(_ value: Int64?) { self = value.map(JSONValue.int) ?? .null }
    init(_ value: Double?) { self = value.map(JSONValue.double) ?? .null }
    init(_ value: Date?) { self = value.map { .string(JSONValue.timestamp($0)) } ?? .null }

    /// `2026-11-24T09:30:05.123Z`: RFC 3339 in UTC with milliseconds.
    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
