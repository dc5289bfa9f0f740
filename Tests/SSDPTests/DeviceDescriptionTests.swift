import SSDPWire
import XCTest

/// The UPnP device description a camera serves at its SSDP LOCATION.
final class DeviceDescriptionTests: XCTestCase {
    func testACanonDescriptionIsRead() throws {
        let xml = """
            <?xml version="1.0"?>
            <root xmlns="urn:schemas-upnp-org:device-1-0">
            <specVersion><major>1</major><minor>0</minor></specVersion>
            <URLBase>http://192.168.1.2:49152/upnp/</URLBase>
            <device>
            <deviceType>urn:schemas-upnp-org:device:Basic:1</deviceType>
            <friendlyName>Canon EOS Rebel T6</friendlyName>
            <manufacturer>Canon</manufacturer>
            <modelName>
              Canon EOS Rebel T6
            </modelName>
            <serialNumber>123456789123</serialNumber>
            <UDN>uuid:00000000-0000-0000-0001-00BBC1859FAB</UDN>
            <serviceList><service><serviceType>urn:schemas-canon-com:service:ICPO-WFTEOSSystemService:1</serviceType>
            <serialNumber>not this one</serialNumber></service></serviceList>
            <deviceList><device><modelName>an embedded device</modelName></device></deviceList>
            </device>
            </root>
            """
        let description = try UPnPDeviceDescription(parsing: Array(xml.utf8))
        XCTAssertEqual(
            description,
            UPnPDeviceDescription(
                friendlyName: "Canon EOS Rebel T6", manufacturer: "Canon",
                modelName: "Canon EOS Rebel T6", serialNumber: "123456789123",
                udn: "uuid:00000000-0000-0000-0001-00BBC1859FAB"))
    }

    func testEncodedDescriptionsRoundTripWithMarkupInNames() throws {
        let original = UPnPDeviceDescription(
            friendlyName: "Anna's <R5> & \"B\" 1<\u{652}x", manufacturer: "Canon.Inc", modelName: "EOS R5",
            serialNumber: "SIM0CANON0001", udn: "uuid:1")
        XCTAssertEqual(try UPnPDeviceDescription(parsing: original.encoded()), original)
    }

    func testBrokenOrForeignXMLIsRefused() {
        XCTAssertThrowsError(try UPnPDeviceDescription(parsing: Array("<root><device><modelName>x</device>".utf8)))
        XCTAssertThrowsError(try UPnPDeviceDescription(parsing: Array("<html><body>router</body></html>".utf8)))
        XCTAssertThrowsError(try UPnPDeviceDescription(parsing: [UInt8](repeating: 32, count: UPnPDeviceDescription.maximumLength + 1)))
        let entities = "<!DOCTYPE r [<!ENTITY a \"aaaa\">]><root><device><modelName>&a;</modelName></device></root>"
        XCTAssertThrowsError(try UPnPDeviceDescription(parsing: Array(entities.utf8)), "no DOCTYPE, so no entity expansion")
        XCTAssertThrowsError(try UPnPDeviceDescription(parsing: [0x3C, 0x72, 0xFF, 0x3E, 0x3C, 0x2F, 0x72, 0xFF, 0x3E]), "not UTF-8")
    }

    /// Inputs that crashed Foundation's XMLParser in the fuzz target read cleanly here.
    func testProcessingInstructionsCommentsAndPrefixesAreTolerated() throws {
        let xml =
            "<?x?><!-- c --><upnp:root xmlns:upnp='u'><device a='>'><modelName>R5 &#x2161; &lt;x&gt;</modelName>"
            + "<friendlyName><![CDATA[<b>]]></friendlyName><serialNumber/></device></upnp:root>"
        let description = try UPnPDeviceDescription(parsing: Array(xml.utf8))
        XCTAssertEqual(description.modelName, "R5 Ⅱ <x>")
        XCTAssertEqual(description.friendlyName, "<b>")
        XCTAssertEqual(description.serialNumber, "")
    }
}
