import GPhoto2
import XCTest

final class GPhoto2PortTests: XCTestCase {
    func testUSBAloneIsTheFirstDetectedCamera() throws {
        XCTAssertEqual(try GPhoto2Port.parse("usb"), .firstUSB)
        XCTAssertEqual(try GPhoto2Port.parse(" USB "), .firstUSB)
        XCTAssertNil(GPhoto2Port.firstUSB.portPath)
    }

    func testUSBBusAndDeviceBecomeLibgphoto2sThreeDigitPath() throws {
        let port = try GPhoto2Port.parse("usb:1,5")
        XCTAssertEqual(port, .usb(bus: 1, device: 5))
        XCTAssertEqual(port?.portPath, "usb:001,005")
        XCTAssertEqual(try GPhoto2Port.parse("usb:001,005"), .usb(bus: 1, device: 5))
        XCTAssertEqual(port?.description, "usb:001,005")
    }

    func testGPhoto2PrefixPassesAnyPortPathThrough() throws {
        let port = try GPhoto2Port.parse("gphoto2:ptpip:127.0.0.1:15740:15740")
        XCTAssertEqual(port, .path("ptpip:127.0.0.1:15740:15740"))
        XCTAssertEqual(port?.portPath, "ptpip:127.0.0.1:15740:15740")
        XCTAssertEqual(port?.description, "gphoto2:ptpip:127.0.0.1:15740:15740")
        XCTAssertEqual(try GPhoto2Port.parse("gphoto2:serial:/dev/ttyS0")?.portPath, "serial:/dev/ttyS0")
        XCTAssertFalse(port?.isUSB ?? true)
    }

    func testGPhoto2USBPathsAreUSBPorts() throws {
        XCTAssertEqual(try GPhoto2Port.parse("gphoto2:usb:002,011"), .usb(bus: 2, device: 11))
        XCTAssertEqual(try GPhoto2Port.parse("gphoto2:usb:"), .firstUSB)
        XCTAssertTrue(GPhoto2Port.usb(bus: 2, device: 11).isUSB)
    }

    func testOtherAddressesAreNotLibgphoto2s() throws {
        XCTAssertNil(try GPhoto2Port.parse("ptpip://192.168.1.2"))
        XCTAssertNil(try GPhoto2Port.parse("auto"))
        XCTAssertNil(try GPhoto2Port.parse("usbcam"))
    }

    func testMalformedLibgphoto2AddressesSayWhatToGive() {
        for text in ["usb:1", "usb:a,b", "usb:0,5", "usb:1,2,3", "gphoto2:", "gphoto2:ptpip", "gphoto2::x", "gphoto2:ptp ip:1"] {
            XCTAssertThrowsError(try GPhoto2Port.parse(text), text) { error in
                let message = "\(error)"
                XCTAssertTrue(message.contains("usb:BUS,DEV") && message.contains("gphoto2:PORT"), message)
            }
        }
    }
}
