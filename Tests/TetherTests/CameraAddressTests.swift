import PTPIP
import Tether
import XCTest

final class CameraAddressTests: XCTestCase {
    func testAcceptedForms() throws {
        XCTAssertEqual(try CameraAddress.parse("ptpip://192.168.1.2"), .ptpip(host: "192.168.1.2", port: 15740))
        XCTAssertEqual(try CameraAddress.parse("PTPIP://cam.local:15741/"), .ptpip(host: "cam.local", port: 15741))
        XCTAssertEqual(try CameraAddress.parse("ptpip://[fe80::1]:2000"), .ptpip(host: "fe80::1", port: 2000))
        XCTAssertEqual(try CameraAddress.parse(" auto "), .auto)
    }

    func testRefusedFormsNameTheAcceptedOnes() {
        for bad in [
            "192.168.1.2", "http://192.168.1.2", "ptpip://", "ptpip://host:0", "ptpip://host:70000",
            "ptpip://host:12ab", "ptpip://user@host", "ptpip://host/path", "ptpip://[::1",
        ] {
            XCTAssertThrowsError(try CameraAddress.parse(bad), bad) { error in
                XCTAssertTrue("\(error)".contains("ptpip://HOST[:PORT]"), "\(error)")
            }
        }
    }

    func testDescriptionRoundTrips() throws {
        for text in ["ptpip://10.0.0.1", "ptpip://10.0.0.1:2000", "ptpip://[fe80::1]:2000", "auto"] {
            XCTAssertEqual(try CameraAddress.parse(text).description, text)
        }
    }
}

final class AddressRangeTests: XCTestCase {
    func testForms() throws {
        XCTAssertEqual(try AddressRange.parse("10.0.0.5"), ["10.0.0.5"])
        XCTAssertEqual(try AddressRange.parse("127.0.0.1-3"), ["127.0.0.1", "127.0.0.2", "127.0.0.3"])
        XCTAssertEqual(try AddressRange.parse("10.0.0.254-10.0.1.1"), ["10.0.0.254", "10.0.0.255", "10.0.1.0", "10.0.1.1"])
        XCTAssertEqual(try AddressRange.parse("192.168.1.0/30"), ["192.168.1.1", "192.168.1.2"])
        XCTAssertEqual(try AddressRange.parse("192.168.1.0/24").count, 254)
    }

    func testPartsAreJoinedWithoutDuplicates() throws {
        XCTAssertEqual(try AddressRange.parse("127.0.0.1-2, 127.0.0.2 ,127.0.0.9"), ["127.0.0.1", "127.0.0.2", "127.0.0.9"])
    }

    func testRefused() {
        for bad in [
            "", "10.0.0", "10.0.0.256", "10.0.0.5-3", "10.0.0.1/8", "10.0.0.1/33", "a.b.c.d", "10.0.0.1-",
            "10.0.0.1-10.0.255.255", "1.2.3.4.5", "10.0.0.01234",
        ] {
            XCTAssertThrowsError(try AddressRange.parse(bad), bad) { error in
                XCTAssertTrue("\(error)".contains("192.168.1.0/24"), "\(error)")
            }
        }
    }

    func testNeighboursAreTheSubnetNarrowedToASlash24WithoutTheMachineItself() {
        let own = AddressRange.ipv4("192.168.7.33")!
        let hotspot = AddressRange.neighbours(of: own, netmask: AddressRange.ipv4("255.255.255.0")!)
        XCTAssertEqual(hotspot.count, 253)
        XCTAssertFalse(hotspot.contains("192.168.7.33"))
        XCTAssertEqual(hotspot.first, "192.168.7.1")
        XCTAssertEqual(hotspot.last, "192.168.7.254")
        let wide = AddressRange.neighbours(of: own, netmask: AddressRange.ipv4("255.255.0.0")!)
        XCTAssertEqual(wide, hotspot)
        let small = AddressRange.neighbours(of: own, netmask: AddressRange.ipv4("255.255.255.248")!)
        XCTAssertEqual(small, ["192.168.7.34", "192.168.7.35", "192.168.7.36", "192.168.7.37", "192.168.7.38"])
        XCTAssertEqual(AddressRange.neighbours(of: own, netmask: ~0), [])
    }
}
