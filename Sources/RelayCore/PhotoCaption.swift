import Foundation

/// The editor's words for one photo (issue 50): its caption (IPTC 2:120, XMP dc:description)
/// and title (IPTC 2:05, XMP dc:title), written into the photo's stamp in place of the
/// template's, durable in the review journal like a decision.
public struct PhotoCaption: Codable, Sendable, Equatable {
    public var caption: String
    public var title: String

    /// The longest caption taken, in UTF-8 bytes: what one IPTC 2:120 dataset holds.
    public static let captionLimit = 2000
    /// The longest title taken, in UTF-8 bytes (IPTC keeps 64 of it; XMP keeps it whole).
    public static let titleLimit = 256

    /// Checks the lengths and trims surrounding blanks; a caption too long is refused with its
    /// length, never cut short behind the editor's back.
    public init(caption: String, title: String = "") throws(CaptionError) {
        let caption = caption.trimmingCharacters(in: .whitespacesAndNewlines)
        let title = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard caption.utf8.count <= Self.captionLimit else {
            throw .tooLong("caption", bytes: caption.utf8.count, limit: Self.captionLimit)
        }
        guard title.utf8.count <= Self.titleLimit else { throw .tooLong("title", bytes: title.utf8.count, limit: Self.titleLimit) }
        guard !title.contains(where: \.isNewline) else { throw .lineBreakInTitle }
        self.caption = caption
        self.title = title
    }

    /// Neither a caption nor a title: the template's own go.
    public var isEmpty: Bool { caption.isEmpty && title.isEmpty }
}

/// A caption relay does not take.
public enum CaptionError: Error, Equatable, Sendable, CustomStringConvertible {
    case tooLong(String, bytes: Int, limit: Int)
    case lineBreakInTitle

    public var description: String {
        switch self {
        case .tooLong(let field, let bytes, let limit): "the \(field) is \(bytes) bytes long; at most \(limit) fit: shorten it"
        case .lineBreakInTitle: "a title is one line: remove its line break"
        }
    }
}

/// The last caption on each photo after a journal's lines, in order (pure).
public struct PhotoCaptions: Sendable, Equatable {
    public private(set) var byPhoto: [String: PhotoCaption] = [:]

    public init(_ decisions: [ReviewDecision] = []) {
        apply(decisions)
    }

    public mutating func apply(_ decisions: [ReviewDecision]) {
        for decision in decisions where decision.kind == .caption {
            byPhoto[decision.photo] = decision.caption.flatMap { $0.isEmpty ? nil : $0 }
        }
    }

    public subscript(photo: String) -> PhotoCaption? { byPhoto[photo] }
}

/// Which destinations an editor's caption reaches, as the photo stood when it was set.
public struct CaptionOutcome: Sendable, Equatable, Encodable {
    /// Not sent yet: their copy carries it.
    public var goesTo: [String] = []
    /// Already sent (or failed for good): nothing changes there.
    public var alreadySent: [String] = []
    /// Being sent at this moment, without it: nothing changes there.
    public var beingSent: [String] = []

    public init(goesTo: [String] = [], alreadySent: [String] = [], beingSent: [String] = []) {
        self.goesTo = goesTo
        self.alreadySent = alreadySent
        self.beingSent = beingSent
    }

    /// One sentence for the editor: where it goes, and where it changes nothing.
    public var sentence: String {
        var parts: [String] = []
        if !goesTo.isEmpty { parts.append("goes to \(goesTo.joined(separator: ", "))") }
        if !alreadySent.isEmpty { parts.append("already sent to \(alreadySent.joined(separator: ", ")): nothing changes there") }
        if !beingSent.isEmpty { parts.append("being sent to \(beingSent.joined(separator: ", ")) without it: nothing changes there") }
        return parts.isEmpty ? "no destination will send it" : parts.joined(separator: "; ")
    }
}
