import Foundation

/// Loading and saving one JSON state file with relay's rules: a missing file is "empty", a file
/// that does not parse is an error naming it (and is never overwritten), every save is atomic.
public struct JSONStateFile<Value: Codable>: Sendable {
    public let url: URL

    public init(url: URL) {
        self.url = url
    }

    /// The decoded value, or nil when the file does not exist yet.
    public func load() throws(StateFileError) -> Value? {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            return nil
        } catch {
            if !FileManager.default.fileExists(atPath: url.path) { return nil }
            throw .unreadable(path: url.path, reason: error.localizedDescription)
        }
        do {
            return try JSONCoding.decoder.decode(Value.self, from: data)
        } catch {
            throw .corrupt(path: url.path, reason: JSONCoding.explain(error))
        }
    }

    /// Atomically replaces the file with `value` (mode 0600), creating its folder if needed.
    public func save(_ value: Value) throws(StateFileError) {
        try StateDirectory.create(url.deletingLastPathComponent())
        let data: Data
        do {
            data = try JSONCoding.encoder.encode(value)
        } catch {
            throw .writeFailed(path: url.path, reason: "cannot encode: \(error)")
        }
        try AtomicFile.write(data + Data("\n".utf8), to: url)
    }
}

/// The one JSON dialect of relay's files: ISO 8601 dates, sorted keys, pretty printed so a user
/// can read and fix them by hand.
public enum JSONCoding {
    public static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamp.iso8601(date))
        }
        return encoder
    }

    public static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = Timestamp.parse(text) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "'\(text)' is not an ISO 8601 date")
            }
            return date
        }
        return decoder
    }

    /// A one-line reason for a decoding failure, with the JSON path where it happened.
    public static func explain(_ error: Error) -> String {
        func where_(_ path: [CodingKey]) -> String {
            path.isEmpty ? "" : " at " + path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case DecodingError.dataCorrupted(let context):
            let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return (underlying ?? context.debugDescription) + where_(context.codingPath)
        case DecodingError.keyNotFound(let key, let context):
            return "missing key '\(key.stringValue)'" + where_(context.codingPath)
        case DecodingError.typeMismatch(let type, let context):
            return "expected \(type)" + where_(context.codingPath) + ": " + context.debugDescription
        case DecodingError.valueNotFound(let type, let context):
            return "missing \(type) value" + where_(context.codingPath)
        default:
            return "\(error)"
        }
    }
}

/// ISO 8601 timestamps with milliseconds, as written in every relay file.
public enum Timestamp {
    public static func iso8601(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }

    public static func parse(_ text: String) -> Date? {
        if let date = try? Date(
            text, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
        {
            return date
        }
        return try? Date(text, strategy: .iso8601)
    }
}
