import Foundation

/// Loading and saving one JSON state file with relay's rules: a missing file is "empty", a file
/// that does not parse is an error naming it (and is never overwritten), every save is atomic.
///
/// A file relay cannot start without (configs, cameras) keeps the last copy that was read or
/// written whole beside it (``lastGoodURL``), so that the error for a damaged one can say how
/// to restore it. A file that is only a log (the history) can instead be set aside when it
/// cannot be read (``loadSettingAsideUnreadable()``), so that it never stops a run.
public struct JSONStateFile<Value: Codable>: Sendable {
    public let url: URL
    /// Whether the last good copy is kept beside the file.
    public let keepsLastGood: Bool
    /// What the file's contents must also satisfy beyond parsing: nil when they do, else why not.
    private let validate: @Sendable (Value) -> String?

    public init(url: URL, keepsLastGood: Bool = false, validate: @escaping @Sendable (Value) -> String? = { _ in nil }) {
        self.url = url
        self.keepsLastGood = keepsLastGood
        self.validate = validate
    }

    /// `NAME.last-good` beside the file.
    public var lastGoodURL: URL { url.appendingPathExtension("last-good") }

    /// The decoded value, or nil when the file does not exist yet.
    public func load() throws(StateFileError) -> Value? {
        guard let data = try read(url) else { return nil }
        let value: Value
        do {
            value = try decode(data)
        } catch {
            throw .corrupt(path: url.path, reason: error.reason, lastGood: restorableCopy)
        }
        if keepsLastGood { keepLastGood(data) }
        return value
    }

    /// Like ``load()``, but a file that cannot be parsed is moved aside to
    /// `NAME.unreadable-TIMESTAMP` (byte for byte, never deleted) and nil returned with where it
    /// went. For a file that is only a log: a torn one must not stop relay.
    public func loadSettingAsideUnreadable() throws(StateFileError) -> (value: Value?, setAside: URL?) {
        do {
            return (try load(), nil)
        } catch .corrupt {
            let stamp = Timestamp.iso8601(Date()).replacingOccurrences(of: ":", with: "")
            let aside = url.appendingPathExtension("unreadable-\(stamp)")
            do {
                try Durable.rename(url.path, to: aside.path)
            } catch {
                throw .writeFailed(path: url.path, reason: "it cannot be read, nor moved aside (\(error))")
            }
            return (nil, aside)
        }
    }

    /// Atomically replaces the file with `value` (mode 0600), creating its folder if needed.
    public func save(_ value: Value) throws(StateFileError) {
        try StateDirectory.create(url.deletingLastPathComponent())
        let data: Data
        do {
            data = try JSONCoding.encoder.encode(value) + Data("\n".utf8)
        } catch {
            throw .writeFailed(path: url.path, reason: "cannot encode: \(error)")
        }
        try AtomicFile.write(data, to: url)
        if keepsLastGood { try? AtomicFile.write(data, to: lastGoodURL) }
    }

    /// Why a file's bytes are not a good value.
    private struct Unusable: Error {
        var reason: String
    }

    private func decode(_ data: Data) throws(Unusable) -> Value {
        let value: Value
        do {
            value = try JSONCoding.decoder.decode(Value.self, from: data)
        } catch {
            throw Unusable(reason: JSONCoding.explain(error))
        }
        if let problem = validate(value) { throw Unusable(reason: problem) }
        return value
    }

    private func read(_ file: URL) throws(StateFileError) -> Data? {
        do {
            return try Data(contentsOf: file)
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            return nil
        } catch {
            if !FileManager.default.fileExists(atPath: file.path) { return nil }
            throw .unreadable(path: file.path, reason: error.localizedDescription)
        }
    }

    /// The last good copy's path, when there is one that is itself good.
    private var restorableCopy: String? {
        guard keepsLastGood, let data = try? read(lastGoodURL), (try? decode(data)) != nil else { return nil }
        return lastGoodURL.path
    }

    /// Makes the last good copy the file just read, unless it is that already (best effort: a
    /// copy that cannot be written only means a less helpful message later).
    private func keepLastGood(_ data: Data) {
        guard (try? read(lastGoodURL)) != data else { return }
        try? AtomicFile.write(data, to: lastGoodURL)
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
