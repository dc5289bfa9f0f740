import Foundation
import RelayCore

/// How the venue wall shows its photos (`--wall-credit`, `--wall-logo`, `--wall-seconds`):
/// what the people who run live walls ask for, decided once when the run starts.
public struct WallOptions: Sendable, Equatable {
    /// Shows who shot each photo (and its caption) over the photo's corner.
    public var credit: Bool
    /// The event's logo, served by relay (the venue's internet may be down).
    public var logo: Logo?
    /// How long each photo shows before the next.
    public var seconds: Int

    /// Eight seconds: long enough to look, short enough for a room to see many.
    public static let defaultSeconds = 8
    public static let secondsRange = 2...3600

    public init(credit: Bool = false, logo: Logo? = nil, seconds: Int = defaultSeconds) {
        self.credit = credit
        self.logo = logo
        self.seconds = seconds
    }

    /// A logo file, read and checked when the run starts, so that a wrong file is said then
    /// and not found on the screen at the event.
    public struct Logo: Sendable, Equatable {
        public var bytes: [UInt8]
        /// Its media type, from its first bytes (never from its name).
        public var contentType: String

        /// A logo is a small picture; a larger file is more likely a photo given by mistake.
        public static let byteLimit = 2_000_000

        init(bytes: [UInt8], contentType: String) {
            self.bytes = bytes
            self.contentType = contentType
        }

        /// Reads the file at `path`: a PNG, JPEG, WebP or SVG of at most ``byteLimit`` bytes.
        public init(contentsOf path: String) throws(LogoError) {
            var status = stat()
            guard stat(path, &status) == 0 else {
                throw errno == ENOENT ? .missing(path) : .unreadable(path, String(cString: strerror(errno)))
            }
            guard status.st_mode & S_IFMT == S_IFREG else { throw .notAFile(path) }
            guard status.st_size <= Self.byteLimit else { throw .tooLarge(path, Int64(status.st_size)) }
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
                throw .unreadable(path, error.localizedDescription)
            }
            guard data.count <= Self.byteLimit else { throw .tooLarge(path, Int64(data.count)) }
            bytes = Array(data)
            guard let type = Self.contentType(of: bytes) else { throw .notAnImage(path) }
            contentType = type
        }

        /// The media type of a PNG, JPEG, WebP or SVG by its first bytes; nil for anything else.
        static func contentType(of bytes: [UInt8]) -> String? {
            if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
            if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
            if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
                return "image/webp"
            }
            // SVG is text: markup from its first character, with an <svg element.
            guard let text = String(validating: bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes, as: UTF8.self)
            else { return nil }
            let trimmed = text.drop(while: \.isWhitespace)
            return trimmed.hasPrefix("<") && trimmed.range(of: "<svg", options: .caseInsensitive) != nil ? "image/svg+xml" : nil
        }
    }

    /// Why a logo file cannot be used, naming it.
    public enum LogoError: Error, Equatable, CustomStringConvertible {
        case missing(String)
        case unreadable(String, String)
        case notAFile(String)
        case tooLarge(String, Int64)
        case notAnImage(String)

        public var description: String {
            switch self {
            case .missing(let path): "the logo '\(path)' does not exist"
            case .unreadable(let path, let reason): "the logo '\(path)' cannot be read: \(reason)"
            case .notAFile(let path): "the logo '\(path)' is not a file"
            case .tooLarge(let path, let bytes):
                "the logo '\(path)' is \(ByteCountText.format(bytes)); a logo may be 2 MB at most"
            case .notAnImage(let path): "the logo '\(path)' is not a PNG, JPEG, WebP or SVG picture"
            }
        }
    }
}
