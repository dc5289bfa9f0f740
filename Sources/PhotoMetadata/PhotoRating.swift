import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The photographer's rating a photo's file carries, as cameras and editors write it: XMP
/// `xmp:Rating` (0 to 5 stars, −1 rejected; Canon bodies rewrite it on the card when a shot is
/// rated, darktable issue 13286), else EXIF IFD0 Rating 0x4746 (exiftool's EXIF table), else
/// Sony's or Fujifilm's maker-note Rating (``MakerNoteRating``). Read
/// from the head of the file: both sit before the pixels. The XMP packet is parsed with
/// Foundation's XML parser (libxml2 on Linux), never by hand.
public enum PhotoRating {
    /// How much of a file is read: a JPEG's EXIF block and XMP packet are each at most 64 KB.
    public static let readLength = 256 * 1024

    /// The rating in the file at `url`, nil when it carries none (or cannot be read).
    public static func read(file url: URL) -> Int? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: readLength) else { return nil }
        return read(head: [UInt8](head))
    }

    /// The rating in a JPEG's first bytes, nil when they carry none.
    public static func read(head: [UInt8]) -> Int? {
        let segments = JPEGSegments.leadingSegments(head)
        if let xmp = segments.first(where: { $0.kind == .xmp }) {
            let packet = Data(head[xmp.body].dropFirst(Self.xmpSignatureLength))
            if let rating = XMPRating.read(packet) { return rating }
        }
        guard let exif = segments.first(where: { $0.kind == .exif }),
            let tiff = TIFFDirectory(head[exif.body].dropFirst(JPEGSegments.exifSignatureLength))
        else { return nil }
        if let entry = tiff.entry(0x4746, at: tiff.firstDirectory), let value = tiff.number(entry) {
            return Int(Int16(truncatingIfNeeded: value))
        }
        return MakerNoteRating.read(tiff)
    }

    /// "http://ns.adobe.com/xap/1.0/" and its NUL, before the packet.
    static let xmpSignatureLength = 29

    /// Finds `xmp:Rating`, written as an attribute of an `rdf:Description` or as an element.
    private final class XMPRating: NSObject, XMLParserDelegate {
        static let namespace = "http://ns.adobe.com/xap/1.0/"
        var rating: Int?
        private var text: String?

        static func read(_ packet: Data) -> Int? {
            let parser = XMLParser(data: packet)
            let finder = XMPRating()
            parser.delegate = finder
            parser.shouldProcessNamespaces = true
            parser.shouldResolveExternalEntities = false
            parser.parse()
            return finder.rating
        }

        func parser(
            _ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            if namespaceURI == Self.namespace && element == "Rating" {
                text = ""
                return
            }
            for (name, value) in attributes where name == "xmp:Rating" || name == "xap:Rating" || name == "Rating" {
                if rating == nil { rating = Self.stars(value) }
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            text? += string
        }

        func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
            guard let found = text, namespaceURI == Self.namespace, element == "Rating" else { return }
            if rating == nil { rating = Self.stars(found) }
            text = nil
        }

        /// "3", or "3.0" as some editors write it, within −1…5.
        static func stars(_ text: String) -> Int? {
            guard let value = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)), value.isFinite else { return nil }
            let stars = Int(value.rounded())
            return (-1...5).contains(stars) ? stars : nil
        }
    }
}
