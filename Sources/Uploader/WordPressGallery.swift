import Foundation
import RelayCore

/// The live post's gallery: a Gutenberg gallery block of image blocks in the post's content,
/// edited as text the way WordPress's block editor saves it (6.1's gallery with nested image
/// blocks, `wp-includes/js/dist/block-library.js`: `save` of the gallery and `image_save_save`),
/// so the editor opens the post without "unexpected content". Relay's gallery carries the class
/// `relay-live`; a post without one gets one at the end of its content, and the author's own
/// galleries are never touched. Pure: tested on text.
public enum WordPressGallery {
    /// One photo in the gallery.
    public struct Image: Sendable, Equatable {
        /// The attachment's id.
        public var id: Int
        /// The picture shown (WordPress's large size when it made one, else the original).
        public var url: String
        /// `large` or `full`: which of WordPress's sizes `url` is.
        public var sizeSlug: String
        public var alt: String
        public var caption: String
        /// When the photo was taken: the gallery is newest first.
        public var capturedAt: Date

        public init(id: Int, url: String, sizeSlug: String, alt: String, caption: String, capturedAt: Date) {
            self.id = id
            self.url = url
            self.sizeSlug = sizeSlug
            self.alt = alt
            self.caption = caption
            self.capturedAt = capturedAt
        }
    }

    /// The class that marks relay's gallery in a post.
    public static let marker = "relay-live"

    static let open =
        "<!-- wp:gallery {\"linkTo\":\"none\",\"className\":\"\(marker)\"} -->\n"
        + "<figure class=\"wp-block-gallery has-nested-images columns-default is-cropped \(marker)\">"
    static let close = "</figure>\n<!-- /wp:gallery -->"

    /// Whether `content` shows attachment `id` in relay's gallery.
    public static func contains(_ id: Int, in content: String) -> Bool {
        guard let blocks = imageBlocks(in: content) else { return false }
        return content[blocks].contains("class=\"wp-image-\(id)\"")
    }

    /// `content` with `images` in relay's gallery (made at the end when missing), each before
    /// the first image taken earlier than it (`takenAt` tells an image's time by its attachment
    /// id, nil when unknown: an unknown one counts as older, so a new photo goes before it).
    /// Images already there are left as they are.
    public static func adding(_ images: [Image], to content: String, takenAt: (Int) -> Date?) -> String {
        var content = content
        if imageBlocks(in: content) == nil {
            let trimmed = content.trimmingCharacters(in: .whitespacesAndNewlines)
            content = (trimmed.isEmpty ? "" : trimmed + "\n\n") + open + close
        }
        for image in images.sorted(by: { $0.capturedAt < $1.capturedAt }) where !contains(image.id, in: content) {
            guard let blocks = imageBlocks(in: content) else { break }
            let (inner, innerEnd) = (blocks.lowerBound, blocks.upperBound)
            var at = innerEnd
            var cursor = inner
            while let start = content.range(of: "<!-- wp:image {", range: cursor..<innerEnd) {
                let id = imageID(in: content[start.upperBound..<innerEnd])
                if id.map({ (takenAt($0) ?? .distantPast) < image.capturedAt }) ?? true {
                    at = start.lowerBound
                    break
                }
                guard let end = content.range(of: "<!-- /wp:image -->", range: start.upperBound..<innerEnd) else { break }
                cursor = end.upperBound
            }
            let block = markup(image)
            let joined: String
            if at == innerEnd {
                joined = (at == inner ? "" : "\n\n") + block
            } else {
                joined = block + "\n\n"
            }
            content.insert(contentsOf: joined, at: at)
        }
        return content
    }

    /// Where relay's gallery's image blocks are: between its figure's opening tag and its
    /// closing one. Found by its class in the block's comment, not by the whole comment as relay
    /// writes it, so a post saved again in the block editor (which may order the attributes or
    /// the classes its own way) keeps its one gallery.
    static func imageBlocks(in content: String) -> Range<String.Index>? {
        var cursor = content.startIndex
        while let comment = content.range(of: "<!-- wp:gallery ", range: cursor..<content.endIndex),
            let commentEnd = content.range(of: "-->", range: comment.upperBound..<content.endIndex)
        {
            cursor = commentEnd.upperBound
            guard content[comment.upperBound..<commentEnd.lowerBound].contains(marker),
                let figure = content.range(of: "<figure", range: commentEnd.upperBound..<content.endIndex),
                let tagEnd = content.range(of: ">", range: figure.upperBound..<content.endIndex),
                let end = content.range(of: close, range: tagEnd.upperBound..<content.endIndex)
            else { continue }
            return tagEnd.upperBound..<end.lowerBound
        }
        return nil
    }

    /// The `"id":N` at the start of an image block's attributes.
    private static func imageID(in text: Substring) -> Int? {
        guard text.hasPrefix("\"id\":") else { return nil }
        return Int(text.dropFirst(5).prefix { $0.isNumber })
    }

    /// One image block as the block editor saves it inside a gallery.
    static func markup(_ image: Image) -> String {
        let caption = image.caption.isEmpty ? "" : "<figcaption class=\"wp-element-caption\">\(html(image.caption))</figcaption>"
        return "<!-- wp:image {\"id\":\(image.id),\"sizeSlug\":\"\(image.sizeSlug)\",\"linkDestination\":\"none\"} -->\n"
            + "<figure class=\"wp-block-image size-\(image.sizeSlug)\"><img src=\"\(html(image.url))\" alt=\"\(html(image.alt))\" "
            + "class=\"wp-image-\(image.id)\"/>\(caption)</figure>\n<!-- /wp:image -->"
    }

    /// Text as HTML, for an attribute or an element's content; a line break as `<br>`.
    static func html(_ text: String) -> String {
        MarkupText.escaped(text).replacingOccurrences(of: "\n", with: "<br>")
    }
}
