import Foundation
import RelayCore

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// A PROPFIND's `207 Multi-Status` answer (RFC 4918, 13), as far as a probe before a re-send
/// reads it (pure): the size of the one resource a `Depth: 0` question names.
public enum WebDAVMultistatus {
    /// The first `DAV:getcontentlength` that a `200` propstat gives; nil when there is none (a
    /// folder has no length, a server may not say) or `body` is no multistatus.
    public static func contentLength(in body: [UInt8]) -> Int64? {
        parsing.run("multistatus") {
            let parser = XMLParser(data: Data(body))
            let reader = Reader()
            parser.delegate = reader
            parser.shouldProcessNamespaces = true
            parser.shouldResolveExternalEntities = false
            return parser.parse() ? reader.length : nil
        }
    }

    /// FoundationXML on Linux is not safe from several threads at once; the workers take turns.
    private static let parsing = OneAtATime<String>()

    /// Keeps a propstat's length and status until the propstat ends, then the length if the
    /// status was 200 (a server lists the properties it does not have under a 404 propstat).
    private final class Reader: NSObject, XMLParserDelegate {
        var length: Int64?
        private var text = ""
        private var propstatLength: Int64?
        private var propstatStatus = ""

        func parser(
            _ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            text = ""
            if namespaceURI == "DAV:" && element == "propstat" {
                propstatLength = nil
                propstatStatus = ""
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            text += string
        }

        func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
            guard namespaceURI == "DAV:", length == nil else { return }
            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
            switch element {
            case "getcontentlength": propstatLength = Int64(value)
            case "status": propstatStatus = value
            case "propstat" where propstatStatus.split(separator: " ").dropFirst().first == "200": length = propstatLength
            default: break
            }
        }
    }
}
