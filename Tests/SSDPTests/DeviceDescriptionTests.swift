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
        XCTAssertEqual(description, UPnPDeviceDescription(friendlyName: "Canon EOS Rebel T6", manufacturer: "Canon",
                                                          modelName: "Canon EOS Rebel T6", serialNumber: "123456789123",
                                                          udn: "uuid:00000000-0000-0000-0001-00BBC1859FAB"))
    }

    func testEncodedDescriptionsRoundTripWithMarkupInNames() throws {
        let original = UPnPDeviceDescription(friendlyName: "Anna's <R5> & \"B\"", manufacturer: "Canon.Inc", modelName: "EOS R5",
                                             serialNumber: "SIM0CANON0001", udn: "uuid:1")
        XCTAssertEqual(try UPnPDeviceDescription(parsing: original.encoded()), original)
    }

    func testBrokenOrForeignXMLIsRefused() {
        XCTAssertThrowsError(try UPnPDeviceDescription(parsing: Array("<root><device><modelName>x</device>".utf8)))
        XCTAssertThrowsError(try UPnPDeviceDescription(parsing: Array("<html><body>router</body></html>".utf8)))
        XCTAssertThrowsError(try UPnPDeviceDescription(parsing: [UInt8](repeating: 32, count: UPnPDeviceDescription.maximumLength + 1)))
    }
}
