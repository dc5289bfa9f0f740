import PTPWire
import XCTest

final class PTPIPGUIDTests: XCTestCase {
    private let bytes: [UInt8] = [0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF]

    func testTheFormsPhotographersCopyAreReadInWireOrder() {
        for text in [
            "00112233445566778899aabbccddeeff", "00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF",
            "00112233-4455-6677-8899-aabbccddeeff", "{00112233-4455-6677-8899-AABBCCDDEEFF}",
            "  00 11 22 33 44 55 66 77 88 99 aa bb cc dd ee ff  ",
        ] {
            XCTAssertEqual(PTPIPGUID.parse(text), bytes, text)
        }
    }

    func testAnythingButSixteenBytesOfHexIsRefused() {
        for text in [
            "", "0011", "00112233445566778899aabbccddeeff00", "00112233445566778899aabbccddeefg",
            "0:011223344556677889 9aabbccddeeff0", "+0112233445566778899aabbccddeeff",
        ] {
            XCTAssertNil(PTPIPGUID.parse(text), text)
        }
    }

    func testHexRoundTrips() {
        XCTAssertEqual(PTPIPGUID.hex(bytes), "00112233445566778899aabbccddeeff")
        XCTAssertEqual(PTPIPGUID.parse(PTPIPGUID.hex(bytes)), bytes)
    }
}
