import Foundation

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

    /// Parses the XML (UTF-8, as UPnP requires) with ``DescriptionScanner``: Foundation's
    /// XMLParser on Linux crashes on some malformed documents (found by the fuzz target: a
    /// processing instruction without data, an element name that is not UTF-8), and anything on
    /// the network may serve one.
    public init(parsing bytes: [UInt8]) throws(SSDPWireError) {
        guard bytes.count <= Self.maximumLength else { throw .tooLong(count: bytes.count, limit: Self.maximumLength) }
        guard String(validating: bytes, as: UTF8.self) != nil else { throw .malformedDescription("not UTF-8 text") }
        var scanner = DescriptionScanner(bytes)
        let fields = try scanner.deviceFields()
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

    /// Markup characters as entities, by Unicode scalar: a `<` followed by a combining mark is
    /// one Character in Swift, and must still be escaped (found by the fuzz target).
    static func escaped(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result.append(contentsOf: "&amp;".unicodeScalars)
            case "<": result.append(contentsOf: "&lt;".unicodeScalars)
            case ">": result.append(contentsOf: "&gt;".unicodeScalars)
            case "\"": result.append(contentsOf: "&quot;".unicodeScalars)
            case "'": result.append(contentsOf: "&apos;".unicodeScalars)
            default: result.append(scalar)
            }
        }
        return String(result)
    }
}
