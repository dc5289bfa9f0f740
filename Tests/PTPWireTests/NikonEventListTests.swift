import XCTest

@testable import PTPWire

final class NikonEventListTests: XCTestCase {
    func testRoundTripAndLayout() throws {
        let list = NikonEventList(events: [
            NikonEvent(code: .objectAdded, parameter: 0x0001_0000),
            NikonEvent(code: .devicePropChanged, parameter: 0x5007),
            NikonEvent(code: .objectAdded, parameter: 0x0001_0001),
        ])
        let bytes = list.encoded()
        XCTAssertEqual(Array(bytes.prefix(8)), [3, 0, 0x02, 0x40, 0, 0, 1, 0])
        XCTAssertEqual(bytes.count, 2 + 3 * 6)
        XCTAssertEqual(try NikonEventList(decoding: bytes), list)
        XCTAssertEqual(list.addedObjectHandles, [0x0001_0000, 0x0001_0001])
        XCTAssertEqual(try NikonEventList(decoding: [0, 0]).events, [])
    }

    func testCountIsBoundedByTheData() {
        XCTAssertThrowsError(try NikonEventList(decoding: [0xFF, 0xFF, 1, 2, 3, 4, 5, 6])) { error in
            XCTAssertEqual(error as? PTPWireError, .truncated(needed: 0xFFFF * 6, available: 6))
        }
        XCTAssertThrowsError(try NikonEventList(decoding: [1])) { error in
            XCTAssertEqual(error as? PTPWireError, .truncated(needed: 2, available: 1))
        }
    }

    func testGetEventExLayoutWithVariableParameterCounts() throws {
        // Count 3, 2 reserved bytes; ObjectAdded(1 param), CaptureComplete(0), DevicePropChanged(2).
        var writer = PTPDataWriter()
        writer.appendU16(3)
        writer.appendU16(0)
        writer.appendU16(0x4002)
        writer.appendU16(1)
        writer.appendU32(0x1234)
        writer.appendU16(0x400D)
        writer.appendU16(0)
        writer.appendU16(0x4006)
        writer.appendU16(2)
        writer.appendU32(0x5007)
        writer.appendU32(9)
        let list = try NikonEventList(decodingEx: writer.bytes)
        XCTAssertEqual(
            list.events,
            [
                NikonEvent(code: .objectAdded, parameter: 0x1234),
                NikonEvent(code: .captureComplete, parameter: 0),
                NikonEvent(code: .devicePropChanged, parameter: 0x5007),
            ])
        XCTAssertEqual(list.addedObjectHandles, [0x1234])
        XCTAssertEqual(try NikonEventList(decodingEx: list.encodedEx()).addedObjectHandles, [0x1234])
        XCTAssertEqual(try NikonEventList(decodingEx: [0, 0, 0, 0]).events, [])
    }

    func testGetEventExCountsAreBoundedByTheData() {
        XCTAssertThrowsError(try NikonEventList(decodingEx: [0xFF, 0xFF, 0, 0, 1, 2, 3, 4])) { error in
            XCTAssertEqual(error as? PTPWireError, .truncated(needed: 0xFFFF * 4, available: 4))
        }
        // One event claiming 6 parameters, and one claiming 2 with room for 1.
        XCTAssertThrowsError(try NikonEventList(decodingEx: [1, 0, 0, 0, 0x02, 0x40, 6, 0])) { error in
            XCTAssertEqual(error as? PTPWireError, .tooManyParameters(count: 6, limit: 5))
        }
        XCTAssertThrowsError(try NikonEventList(decodingEx: [1, 0, 0, 0, 0x02, 0x40, 2, 0, 1, 0, 0, 0])) { error in
            XCTAssertEqual(error as? PTPWireError, .truncated(needed: 4, available: 0))
        }
    }
}
