import XCTest

@testable import PTPWire

/// Sony's SDIO_GetAllExtDevicePropInfo (0x9209) reply, laid out as libgphoto2's
/// `ptp_unpack_Sony_DPD` reads it.
final class SonyPropertyListTests: XCTestCase {
    private func u16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    private func u32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }

    func testIntegerPropertiesAreReadAndStringsReadPast() throws {
        var bytes = u32(3) + u32(0)
        // A string property (0xFFFF): default "A", current "", no form.
        bytes += u16(0xD222) + u16(0xFFFF) + [1, 1] + [1] + u16(0x41) + [0] + [0]
        // The shutter speed: enumeration of 1/250 and 1/125, then (2024 bodies) a second list.
        bytes += u16(0xD20D) + u16(0x0006) + [1, 1] + u32(0x0001_00FA) + u32(0x0001_007D) + [2]
        bytes += u16(2) + u32(0x0001_00FA) + u32(0x0001_007D)
        bytes += u16(1) + u32(0x0001_007D)
        // The dial, greyed out (is-enabled 0): read-only whatever its get/set says.
        bytes += u16(0x500E) + u16(0x0004) + [1, 0] + u16(1) + u16(1) + [0]
        let list = try SonyPropertyList(decoding: bytes)
        XCTAssertEqual(Set(list.properties.keys), [0xD20D, 0x500E])
        let speed = try XCTUnwrap(list.properties[0xD20D])
        XCTAssertEqual(speed.current, 0x0001_007D)
        XCTAssertEqual(speed.form, .enumeration([0x0001_007D]), "the second list replaces the first")
        XCTAssertEqual(speed.getSet, 1)
        XCTAssertEqual(list.properties[0x500E]?.getSet, 0)
        XCTAssertEqual(try SonyPropertyList(decoding: list.encoded()).properties[0xD20D]?.current, 0x0001_007D)
    }

    func testACutReplyKeepsWhatCameBefore() throws {
        var bytes = u32(2) + u32(0)
        bytes += u16(0x500E) + u16(0x0004) + [0, 1] + u16(1) + u16(4) + [0]
        bytes += u16(0xD20D) + u16(0x0006) + [1, 1] + u32(1)
        let list = try SonyPropertyList(decoding: bytes)
        XCTAssertEqual(list.properties[0x500E]?.current, 4)
        XCTAssertNil(list.properties[0xD20D])
    }
}
