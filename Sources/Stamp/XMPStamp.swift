import Foundation
import RelayCore

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The stamp merged into a photo's own XMP packet: the packet is parsed into a tree with
/// Foundation's `XMLDocument` (libxml2's tree API on Linux), the properties the stamp writes are
/// taken out wherever the camera put them (as attributes or elements), and one
/// `rdf:Description` with the stamp's is added. Everything else, the camera's rating first, is
/// kept as it was. Property forms from the XMP specification part 1 and exiftool's XMP.pm:
/// dc:creator a Seq, dc:subject a Bag, dc:title, dc:rights and dc:description language
/// alternatives, photoshop:* simple text.
enum XMPStamp {
    static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    static let dc = "http://purl.org/dc/elements/1.1/"
    static let photoshop = "http://ns.adobe.com/photoshop/1.0/"
    static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"
    /// The most an XMP packet may take in one APP1 segment (the XMP specification part 3).
    static let packetLimit = 65_502

    /// The properties `values` writes, by namespace and local name: only those are taken out of
    /// the camera's packet (an empty field leaves the camera's, or an editor's, as it was).
    static func owned(by values: StampValues) -> Set<String> {
        var owned: Set<String> = []
        if !values.title.isEmpty { owned.insert(dc + "title") }
        if !values.creator.isEmpty { owned.insert(dc + "creator") }
        if !values.copyright.isEmpty { owned.insert(dc + "rights") }
        if !values.caption.isEmpty { owned.insert(dc + "description") }
        if !values.keywords.isEmpty { owned.insert(dc + "subject") }
        if !values.credit.isEmpty { owned.insert(photoshop + "Credit") }
        if !values.city.isEmpty { owned.insert(photoshop + "City") }
        if !values.headline.isEmpty { owned.insert(photoshop + "Headline") }
        if values.capturedAt != nil { owned.insert(photoshop + "DateCreated") }
        return owned
    }

    /// FoundationXML on Linux is not safe to use from several threads at once (swift-docc
    /// issue 1606): the delivery workers take turns.
    private static let parsing = OneAtATime<String>()

    enum Failure: Error, Equatable, CustomStringConvertible {
        case unreadable(String)
        case tooLarge(Int)

        var description: String {
            switch self {
            case .unreadable(let why): "its XMP packet cannot be read (\(why))"
            case .tooLarge(let bytes): "its XMP packet would grow to \(bytes) bytes, more than one segment holds"
            }
        }
    }

    /// `packet` (the photo's own, nil for none) with the stamp's properties, as a packet for
    /// an APP1 segment.
    static func merged(_ packet: ArraySlice<UInt8>?, with values: StampValues, timeZone: TimeZone = .current) throws(Failure)
        -> [UInt8]
    {
        // XMP allows no document type (part 1, 7.3); a packet with one (an entity that would
        // read a local file into the photo) is refused, and external entities are never loaded.
        if let packet, Self.declaresDocumentType(packet) { throw .unreadable("it declares a document type, which XMP forbids") }
        return try parsing.run("XMLDocument") { () throws(Failure) -> [UInt8] in
            try mergedInTurn(packet, with: values, timeZone: timeZone)
        }
    }

    /// ``merged(_:with:timeZone:)`` once its turn at `XMLDocument` came.
    private static func mergedInTurn(_ packet: ArraySlice<UInt8>?, with values: StampValues, timeZone: TimeZone) throws(Failure)
        -> [UInt8]
    {
        let source =
            packet.map { Data($0) }
            ?? Data(#"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="\#(rdf)"></rdf:RDF></x:xmpmeta>"#.utf8)
        let document: XMLDocument
        do {
            document = try XMLDocument(data: source, options: [.nodeLoadExternalEntitiesNever])
        } catch {
            throw .unreadable("\(error)")
        }
        guard let root = document.rootElement(), let rdfRoot = Self.rdfRoot(root) else { throw .unreadable("no rdf:RDF element") }
        let owned = Self.owned(by: values)
        for case let description as XMLElement in rdfRoot.children ?? [] {
            for attribute in description.attributes ?? [] where owned.contains(Self.key(attribute)) {
                description.removeAttribute(forName: attribute.name ?? "")
            }
            for (index, child) in (description.children ?? []).enumerated().reversed() where owned.contains(Self.key(child)) {
                description.removeChild(at: index)
            }
        }
        rdfRoot.addChild(try Self.description(values, timeZone: timeZone))
        let xml = root.xmlString
        let bytes = Array(("<?xpacket begin=\"\u{FEFF}\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>\n" + xml + "\n<?xpacket end=\"w\"?>").utf8)
        guard bytes.count <= packetLimit else { throw .tooLarge(bytes.count) }
        return bytes
    }

    /// Whether the packet has a `<!DOCTYPE` or `<!ENTITY` declaration.
    static func declaresDocumentType(_ packet: ArraySlice<UInt8>) -> Bool {
        let marks = [Array("<!DOCTYPE".utf8), Array("<!ENTITY".utf8)]
        var index = packet.startIndex
        while let open = packet[index...].firstIndex(of: UInt8(ascii: "<")) {
            if marks.contains(where: { packet[open...].starts(with: $0) }) { return true }
            index = packet.index(after: open)
        }
        return false
    }

    /// The `rdf:RDF` element: `element` itself, or the first found below it.
    private static func rdfRoot(_ element: XMLElement) -> XMLElement? {
        if element.localName == "RDF" && element.uri == rdf { return element }
        for case let child as XMLElement in element.children ?? [] {
            if let found = rdfRoot(child) { return found }
        }
        return nil
    }

    /// A node's namespace and local name, "" when it has no namespace.
    private static func key(_ node: XMLNode) -> String {
        guard let uri = node.uri, let local = node.localName else { return "" }
        return uri + local
    }

    /// The stamp's `rdf:Description`, written as text with every value escaped and parsed by
    /// the same library into an element (so that its namespaces are declared once, on it).
    private static func description(_ values: StampValues, timeZone: TimeZone) throws(Failure) -> XMLElement {
        var xml =
            #"<rdf:Description xmlns:rdf="\#(rdf)" xmlns:dc="\#(dc)" xmlns:photoshop="\#(photoshop)" rdf:about="">"#
        func list(_ name: String, _ kind: String, _ items: [String], language: Bool = false) {
            guard !items.isEmpty else { return }
            let lang = language ? #" xml:lang="x-default""# : ""
            xml +=
                "<\(name)><rdf:\(kind)>" + items.map { "<rdf:li\(lang)>\(MarkupText.escaped($0))</rdf:li>" }.joined()
                + "</rdf:\(kind)></\(name)>"
        }
        func text(_ name: String, _ value: String) {
            guard !value.isEmpty else { return }
            xml += "<\(name)>\(MarkupText.escaped(value))</\(name)>"
        }
        list("dc:title", "Alt", values.title.isEmpty ? [] : [values.title], language: true)
        list("dc:creator", "Seq", values.creator.isEmpty ? [] : [values.creator])
        list("dc:rights", "Alt", values.copyright.isEmpty ? [] : [values.copyright], language: true)
        list("dc:description", "Alt", values.caption.isEmpty ? [] : [values.caption], language: true)
        list("dc:subject", "Bag", values.keywords)
        text("photoshop:Credit", values.credit)
        text("photoshop:City", values.city)
        text("photoshop:Headline", values.headline)
        if let date = values.capturedAt { text("photoshop:DateCreated", LocalTime(date, timeZone: timeZone).xmp) }
        xml += "</rdf:Description>"
        do {
            return try XMLElement(xmlString: xml)
        } catch {
            throw .unreadable("the stamp's own properties: \(error)")
        }
    }
}
