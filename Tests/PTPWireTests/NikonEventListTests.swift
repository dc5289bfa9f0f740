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
}
