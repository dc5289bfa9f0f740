import XCTest

@testable import PTPWire

final class PTPDataCodingTests: XCTestCase {
    func testIntegersAreLittleEndian() throws {
        var writer = PTPDataWriter()
        writer.appendU8(0x01)
        writer.appendU16(0x0302)
        writer.appendU32(0x0706_0504)
        writer.appendU64(0x0F0E_0D0C_0B0A_0908)
        XCTAssertEqual(writer.bytes, Array(1...15))

        var reader = PTPDataReader(writer.bytes)
        XCTAssertEqual(try reader.readU8(), 0x01)
        XCTAssertEqual(try reader.readU16(), 0x0302)
        XCTAssertEqual(try reader.readU32(), 0x0706_0504)
        XCTAssertEqual(try reader.readU64(), 0x0F0E_0D0C_0B0A_0908)
        XCTAssertTrue(reader.isAtEnd)
        XCTAssertThrowsError(try reader.readU8()) { error in
            XCTAssertEqual(error as? PTPWireError, .truncated(needed: 1, available: 0))
        }
    }

    func testStringLayoutCountsUnitsIncludingNUL() throws {
        var writer = PTPDataWriter()
        writer.appendString("Ab")
        XCTAssertEqual(writer.bytes, [3, 0x41, 0, 0x62, 0, 0, 0])

        var empty = PTPDataWriter()
        empty.appendString("")
        XCTAssertEqual(empty.bytes, [0])
    }

    func testStringsRoundTripIncludingNonASCII() throws {
        for text in ["", "a", "Canon EOS R50", "Zoë 📷", String(repeating: "x", count: 254)] {
            var writer = PTPDataWriter()
            writer.appendString(text)
            var reader = PTPDataReader(writer.bytes)
            XCTAssertEqual(try reader.readString(), text)
            XCTAssertTrue(reader.isAtEnd)
        }
    }

    func testOverlongStringIsClippedTo254Units() throws {
        var writer = PTPDataWriter()
        writer.appendString(String(repeating: "y", count: 400))
        XCTAssertEqual(writer.bytes.first, 255)
        var reader = PTPDataReader(writer.bytes)
        XCTAssertEqual(try reader.readString(), String(repeating: "y", count: 254))
    }

    func testStringWithoutFinalNULDoesNotReadTheCountedNULSlot() throws {
        // Count 2 means one text unit plus NUL; a peer putting text in the NUL slot loses it.
        var reader = PTPDataReader([2, 0x41, 0, 0x42, 0])
        XCTAssertEqual(try reader.readString(), "A")
    }

    func testTruncatedStringIsTypedError() {
        var reader = PTPDataReader([5, 0x41, 0])
        XCTAssertThrowsError(try reader.readString()) { error in
            XCTAssertEqual(error as? PTPWireError, .truncated(needed: 10, available: 2))
        }
    }

    func testArraysRoundTrip() throws {
        var writer = PTPDataWriter()
        writer.appendArrayU16([1, 0xFFFF])
        writer.appendArrayU32([])
        writer.appendArrayU32([0xDEAD_BEEF])
        var reader = PTPDataReader(writer.bytes)
        XCTAssertEqual(try reader.readArrayU16(), [1, 0xFFFF])
        XCTAssertEqual(try reader.readArrayU32(), [])
        XCTAssertEqual(try reader.readArrayU32(), [0xDEAD_BEEF])
        XCTAssertTrue(reader.isAtEnd)
    }

    func testHostileArrayCountIsRefusedBeforeAllocating() {
        var reader = PTPDataReader([0xFF, 0xFF, 0xFF, 0xFF, 1, 2])
        XCTAssertThrowsError(try reader.readArrayU32()) { error in
            XCTAssertEqual(error as? PTPWireError, .arrayTooLong(count: 0xFFFF_FFFF, limit: PTPDataReader.defaultArrayLimit))
        }
        var small = PTPDataReader([3, 0, 0, 0, 1, 0])
        XCTAssertThrowsError(try small.readArrayU16()) { error in
            XCTAssertEqual(error as? PTPWireError, .truncated(needed: 6, available: 2))
        }
        var limited = PTPDataReader([3, 0, 0, 0, 1, 0, 2, 0, 3, 0])
        XCTAssertThrowsError(try limited.readArrayU16(limit: 2)) { error in
            XCTAssertEqual(error as? PTPWireError, .arrayTooLong(count: 3, limit: 2))
        }
    }

    func testReadBytesAndSliceOffsets() throws {
        let storage: [UInt8] = [9, 9, 1, 2, 3, 4]
        var reader = PTPDataReader(storage[2...])
        XCTAssertEqual(reader.remaining, 4)
        XCTAssertEqual(try reader.readBytes(2), [1, 2])
        XCTAssertEqual(reader.offset, 2)
        XCTAssertThrowsError(try reader.readBytes(3))
        XCTAssertEqual(reader.readRemaining(), [3, 4])
    }

    func testErrorDescriptionsAreReadable() {
        XCTAssertEqual(
            PTPWireError.lengthTooLarge(0xFFFF_FFFF, limit: 100).description,
            "PTP/IP packet length 4294967295 exceeds the limit of 100 bytes")
        XCTAssertTrue(PTPWireError.recordOutOfBounds(offset: 16, size: 99, available: 20).description.contains("offset 16"))
    }
}
