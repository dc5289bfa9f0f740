/// The subset of XML a UPnP device description uses, read without an XML library: elements
/// (attributes skipped, namespace prefixes dropped), text with the five named entities and
/// numeric character references, CDATA, comments and processing instructions. A DOCTYPE is
/// refused, so no entity is ever defined or expanded. Collects the text of the root device's
/// direct children (`root/device/NAME`); embedded devices and services are passed over.
struct DescriptionScanner {
    private let bytes: [UInt8]
    private var index = 0
    /// Deeper nesting than a description has is refused rather than followed.
    private static let maximumDepth = 32
    /// Longest field kept: a name or serial is short.
    private static let maximumFieldLength = 256

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func deviceFields() throws(SSDPWireError) -> [String: String] {
        var path: [String] = []
        var fields: [String: String] = [:]
        var text: [UInt8] = []
        var sawRoot = false
        var sawDevice = false
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "<") else {
                let run = takeUntil("<")
                if path.isEmpty {
                    guard run.allSatisfy(Self.isSpace) else { throw .malformedDescription("text outside the root element") }
                } else {
                    text += run
                }
                continue
            }
            if skip("<?") {
                try skipPast("?>")
            } else if skip("<!--") {
                try skipPast("-->")
            } else if skip("<![CDATA[") {
                let start = index
                try skipPast("]]>")
                if !path.isEmpty { text += bytes[start..<(index - 3)] }
            } else if skip("<!") {
                throw .malformedDescription("a DOCTYPE or declaration, which descriptions do not have")
            } else if skip("</") {
                let name = Self.localName(takeUntil(">"))
                guard skip(">"), let open = path.last, open == name else {
                    throw .malformedDescription("</\(name)> does not close <\(path.last ?? "")>")
                }
                if path.count == 3, path[0] == "root", path[1] == "device", fields[name] == nil {
                    fields[name] = try Self.decoded(text)
                }
                path.removeLast()
                text = []
            } else {
                index += 1
                let tag = try takeTag()
                let name = Self.localName(tag.prefix { !Self.isSpace($0) && $0 != UInt8(ascii: "/") })
                guard !name.isEmpty else { throw .malformedDescription("an element without a name") }
                if path.isEmpty {
                    guard !sawRoot else { throw .malformedDescription("a second root element <\(name)>") }
                    sawRoot = true
                }
                path.append(name)
                guard path.count <= Self.maximumDepth else { throw .malformedDescription("elements nested too deep") }
                if path == ["root", "device"] { sawDevice = true }
                text = []
                if tag.last == UInt8(ascii: "/") { path.removeLast() }
            }
        }
        guard path.isEmpty else { throw .malformedDescription("the document ends inside <\(path.joined(separator: "><"))>") }
        guard sawDevice else { throw .malformedDescription("no <device> element in <root>") }
        return fields
    }

    /// The inside of a start tag, up to its `>` (quoted attribute values may hold `>`).
    private mutating func takeTag() throws(SSDPWireError) -> ArraySlice<UInt8> {
        let start = index
        var quote: UInt8?
        while index < bytes.count {
            let byte = bytes[index]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: ">") {
                defer { index += 1 }
                return bytes[start..<index]
            } else if byte == UInt8(ascii: "<") {
                break
            }
            index += 1
        }
        throw .malformedDescription("an unclosed start tag")
    }

    private mutating func takeUntil(_ stop: Unicode.Scalar) -> ArraySlice<UInt8> {
        let start = index
        while index < bytes.count, bytes[index] != UInt8(ascii: stop) { index += 1 }
        return bytes[start..<index]
    }

    private mutating func skip(_ literal: String) -> Bool {
        let wanted = Array(literal.utf8)
        guard bytes.count - index >= wanted.count, bytes[index..<(index + wanted.count)].elementsEqual(wanted) else { return false }
        index += wanted.count
        return true
    }

    private mutating func skipPast(_ literal: String) throws(SSDPWireError) {
        while index < bytes.count {
            if skip(literal) { return }
            index += 1
        }
        throw .malformedDescription("no closing \(literal)")
    }

    /// The name without a namespace prefix (`upnp:root` is `root`).
    private static func localName(_ raw: some Collection<UInt8>) -> String {
        let name = String(decoding: raw, as: UTF8.self).trimmed
        return name.split(separator: ":").last.map(String.init) ?? name
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    /// Text with its entities and character references replaced, trimmed and cut to length.
    /// Works on Unicode scalars: `&` or `;` followed by a combining mark is one Character in
    /// Swift (found by the fuzz target).
    private static func decoded(_ raw: [UInt8]) throws(SSDPWireError) -> String {
        var result = String.UnicodeScalarView()
        let scalars = Array(String(decoding: raw, as: UTF8.self).unicodeScalars)
        var index = 0
        while index < scalars.count {
            guard scalars[index] == "&" else {
                result.append(scalars[index])
                index += 1
                continue
            }
            guard let end = scalars[index...].prefix(12).firstIndex(of: ";") else {
                throw .malformedDescription("an unterminated entity")
            }
            let entity = String(String.UnicodeScalarView(scalars[(index + 1)..<end]))
            switch entity {
            case "amp": result.append("&")
            case "lt": result.append("<")
            case "gt": result.append(">")
            case "quot": result.append("\"")
            case "apos": result.append("'")
            default:
                let number: UInt32? =
                    entity.hasPrefix("#x")
                    ? UInt32(entity.dropFirst(2), radix: 16)
                    : entity.hasPrefix("#") ? UInt32(entity.dropFirst()) : nil
                guard let number, number != 0, let scalar = Unicode.Scalar(number) else {
                    throw .malformedDescription("unknown entity &\(entity);")
                }
                result.append(scalar)
            }
            index = end + 1
        }
        return String(String(result).trimmed.prefix(maximumFieldLength))
    }
}

extension String {
    /// Without leading and trailing XML white space.
    fileprivate var trimmed: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
