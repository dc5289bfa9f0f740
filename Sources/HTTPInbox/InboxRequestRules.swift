import FTPWire
import Foundation
import RelayCore

/// An HTTP answer the inbox gives to a request it does not take: its status and a sentence for
/// the sender, who may be a person with curl or a field relay that records it.
public struct InboxRefusal: Error, Sendable, Equatable {
    public var status: Int
    public var message: String

    public init(_ status: Int, _ message: String) {
        self.status = status
        self.message = message
    }
}

/// The inbox's rules for a request, decided before and as its body arrives (pure).
public enum InboxRequestRules {
    /// How a request hands its photo over.
    public enum Shape: Sendable, Equatable {
        /// `POST /upload`, `multipart/form-data`: the part with a file name is the photo.
        case multipart
        /// `PUT /upload/NAME`: the body is the photo.
        case bare(name: String)
    }

    /// Where the photos go: the only paths the inbox serves.
    public static let path = "/upload"

    /// The shape of a request to `path` with `method`, or why it is refused.
    public static func shape(method: String, path: String) throws(InboxRefusal) -> Shape {
        if path == Self.path || path == Self.path + "/" {
            guard method == "POST" else {
                throw InboxRefusal(405, "POST a multipart/form-data photo to \(Self.path), or PUT the bare JPEG to \(Self.path)/NAME")
            }
            return .multipart
        }
        guard path.hasPrefix(Self.path + "/") else {
            throw InboxRefusal(404, "nothing here: photos go to POST \(Self.path) (multipart) or PUT \(Self.path)/NAME")
        }
        guard method == "PUT" else {
            throw InboxRefusal(405, "PUT the bare JPEG to \(path), or POST a multipart/form-data photo to \(Self.path)")
        }
        return .bare(name: try fileName(String(path.dropFirst(Self.path.count + 1))))
    }

    /// A photo's file name as a sender gave it, refused when it holds a path (a folder, `..`, a
    /// drive), is hidden, empty, too long or has control characters.
    public static func fileName(_ given: String) throws(InboxRefusal) -> String {
        guard !given.isEmpty else { throw InboxRefusal(400, "the photo has no file name") }
        guard !given.contains("/"), !given.contains("\\"), given != "..", given != "." else {
            throw InboxRefusal(400, "the file name '\(printable(given))' holds a path: send the photo's name alone")
        }
        guard !given.hasPrefix(".") else { throw InboxRefusal(400, "the file name '\(printable(given))' is hidden (starts with a dot)") }
        guard given.utf8.count <= 200 else { throw InboxRefusal(400, "the file name is longer than 200 bytes") }
        guard !given.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw InboxRefusal(400, "the file name holds control characters")
        }
        return given
    }

    /// What the first bytes of a body say it is.
    public enum Kind: Sendable, Equatable {
        case jpeg
        case raw
        case other
    }

    /// How many first bytes ``kind(of:)`` needs.
    public static let signatureBytes = 16

    /// A JPEG by its start of image and first marker; a RAW by the TIFF header CR2, NEF, ARW, DNG,
    /// ORF and RW2 begin with, CR3's ISO box (`ftypcrx `) or RAF's `FUJIFILMCCD-RAW`.
    public static func kind(of head: [UInt8]) -> Kind {
        if head.count >= 3, head[0] == 0xFF, head[1] == 0xD8, head[2] == 0xFF { return .jpeg }
        if head.count >= 4 {
            let four = Array(head.prefix(4))
            if four == [0x49, 0x49, 0x2A, 0x00] || four == [0x4D, 0x4D, 0x00, 0x2A] || four == [0x49, 0x49, 0x52, 0x4F]
                || four == [0x49, 0x49, 0x55, 0x00]
            {
                return .raw
            }
        }
        if head.count >= 12, Array(head[4..<12]) == Array("ftypcrx ".utf8) { return .raw }
        if head.count >= 15, Array(head.prefix(15)) == Array("FUJIFILMCCD-RAW".utf8) { return .raw }
        return .other
    }

    /// Whether a body of `kind` named `name` is kept, or why not.
    public static func accept(_ kind: Kind, name: String, includeRAW: Bool) throws(InboxRefusal) -> Kind {
        switch kind {
        case .jpeg:
            return .jpeg
        case .raw where includeRAW && FTPFileKind(fileName: name) == .raw:
            return .raw
        case .raw where includeRAW:
            throw InboxRefusal(415, "\(printable(name)) is a RAW file by its bytes but not by its name: send it under its camera name")
        case .raw:
            throw InboxRefusal(415, "\(printable(name)) is a RAW file: this desk takes JPEGs only (relay run --include-raw takes RAW)")
        case .other:
            throw InboxRefusal(415, "\(printable(name)) is not a JPEG by its bytes (it does not start with FF D8 FF)")
        }
    }

    /// The name the photo is spooled under: a JPEG keeps its name when it says JPEG, else gets
    /// `.jpg` added, so that galleries give it the right type.
    public static func spoolName(_ name: String, kind: Kind) -> String {
        guard kind == .jpeg, FTPFileKind(fileName: name) != .jpeg else { return name }
        return name + ".jpg"
    }

    /// An `Idempotency-Key` as it is kept: printable ASCII, at most 200 characters.
    public static func idempotencyKey(_ header: String?) throws(InboxRefusal) -> String? {
        guard let header = header?.trimmingCharacters(in: .whitespaces), !header.isEmpty else { return nil }
        guard header.utf8.count <= 200, header.unicodeScalars.allSatisfy({ $0.value >= 0x21 && $0.value < 0x7F }) else {
            throw InboxRefusal(400, "the Idempotency-Key must be printable ASCII without spaces, at most 200 characters")
        }
        return header
    }

    /// A body over `--http-max-size`.
    public static func tooLarge(limit: Int64) -> InboxRefusal {
        InboxRefusal(413, "the photo is larger than this desk's limit of \(ByteCountText.format(limit)) (--http-max-size)")
    }

    /// The spool at its limits: a sender (a field relay) tries again, as it does after a 503.
    public static let spoolFull = InboxRefusal(
        503, "the desk's spool is full while its galleries catch up: send the photo again in a minute")

    /// What a sender gave, fit for a message or the log: at most 80 characters, control
    /// characters as `?`.
    public static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.prefix(80).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : $0 }))
    }
}
