import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// What a UPnP device says about itself in the description its SSDP `LOCATION` names: enough
/// for `relay discover` to name a camera without opening a PTP/IP connection to it.
///
/// The standard root/device layout of UPnP Device Architecture 1.0; Canon bodies serve it at
/// `/upnp/CameraDevDesc.xml` (rocc `CanonPTPIPCamera.swift` reads `modelName` from it as the
/// camera model). Only the root `<device>`'s own fields are read; embedded devices are skipped.
public struct UPnPDeviceDescription: Sendable, Equatable, Codable {
    public var friendlyName = ""
    public var manufacturer = ""
    public var modelName = ""
    public var serialNumber = ""
    /// `uuid:…`, unique per device (Canon puts the MAC address in it).
    public var udn = ""

    /// A description is a few kilobytes; anything beyond this is not a camera's.
    public static let maximumLength = 65_536

    public init(friendlyName: String, manufacturer: String, modelName: String, serialNumber: String, udn: String) {
        self.friendlyName = friendlyName
        self.manufacturer = manufacturer
        self.modelName = modelName
        self.serialNumber = serialNumber
        self.udn = udn
    }

    /// Parses the XML (UTF-8, as UPnP requires); external entities are never fetched.
    public init(parsing bytes: [UInt8]) throws(SSDPWireError) {
        guard bytes.count <= Self.maximumLength else { throw .tooLong(count: bytes.count, limit: Self.maximumLength) }
        // Foundation's XMLParser on Linux traps on an element name that is not UTF-8 (found by the
        // fuzz tests), so such bytes are refused before it sees them.
        guard String(validating: bytes, as: UTF8.self) != nil else { throw .malformedDescription("not UTF-8 text") }
        let reader = DeviceFieldReader()
        let parser = XMLParser(data: Data(bytes))
        parser.shouldResolveExternalEntities = false
        parser.delegate = reader
        guard parser.parse(), reader.error == nil else {
            throw .malformedDescription(reader.error ?? parser.parserError.map { "\($0.localizedDescription)" } ?? "not well-formed XML")
        }
        guard reader.sawDevice else { throw .malformedDescription("no <device> element") }
        let fields = reader.fields
        friendlyName = fields["friendlyName"] ?? ""
        manufacturer = fields["manufacturer"] ?? ""
        modelName = fields["modelName"] ?? ""
        serialNumber = fields["serialNumber"] ?? ""
        udn = fields["UDN"] ?? ""
    }

    /// The description as a device serves it (the simulator's).
    public func encoded(deviceType: String = "urn:schemas-upnp-org:device:Basic:1") -> [UInt8] {
        func element(_ name: String, _ value: String) -> String { "<\(name)>\(Self.escaped(value))</\(name)>" }
        let text = """
        <?xml version="1.0"?>
        <root xmlns="urn:schemas-upnp-org:device-1-0">
        <specVersion><major>1</major><minor>0</minor></specVersion>
        <device>
        \(element("deviceType", deviceType))
        \(element("friendlyName", friendlyName))
        \(element("manufacturer", manufacturer))
        \(element("modelName", modelName))
        \(element("serialNumber", serialNumber))
        \(element("UDN", udn))
        </device>
        </root>

        """
        return Array(text.utf8)
    }

    static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            default: result.append(character)
            }
        }
        return result
    }
}

/// Collects the text of the root device's direct children (`root/device/NAME`).
private final class DeviceFieldReader: NSObject, XMLParserDelegate {
    private(set) var fields: [String: String] = [:]
    private(set) var sawDevice = false
    private(set) var error: String?
    private var path: [String] = []
    private var text = ""
    /// Longest field kept: a name or serial is short, and the text of a hostile one is not kept.
    private static let maximumFieldLength = 256

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        path.append(name)
        if path == ["root", "device"] { sawDevice = true }
        text = ""
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard path.count == 3, path[0] == "root", path[1] == "device" else { return }
        if text.count < Self.maximumFieldLength { text += string }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
        if error == nil { error = "not well-formed XML (\(parseError.localizedDescription))" }
    }

    func parserDidEndDocument(_ parser: XMLParser) {
        if !path.isEmpty, error == nil { error = "the document ends inside <\(path.joined(separator: "><"))>" }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if path.count == 3, path[0] == "root", path[1] == "device", fields[name] == nil {
            fields[name] = String(text.trimmingCharacters(in: .whitespacesAndNewlines).prefix(Self.maximumFieldLength))
        }
        text = ""
        if !path.isEmpty { path.removeLast() }
    }
}
