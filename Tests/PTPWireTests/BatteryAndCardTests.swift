import XCTest

@testable import PTPWire

/// Battery levels and free card space as bodies report them: the standard property with its
/// forms, Sony's and Canon's own scales, the EOS event stream of a real body, StorageInfo.
final class BatteryAndCardTests: XCTestCase {
    func testStandardBatteryLevelDescriptionDecodesAndScalesByItsForm() throws {
        // GetDevicePropDesc(0x5001) of a body with a 0–100 range: code, UINT8, read-only,
        // default 100, current 15, range 0...100 step 1.
        let bytes: [UInt8] = [0x01, 0x50, 0x02, 0x00, 0x00, 100, 15, 0x01, 0, 100, 1]
        let desc = try PTPDevicePropDesc(decoding: bytes)
        XCTAssertEqual(desc.property, .batteryLevel)
        XCTAssertEqual(desc.dataType, .uint8)
        XCTAssertEqual(desc.current, 15)
        XCTAssertEqual(desc.form, .range(minimum: 0, maximum: 100, step: 1))
        XCTAssertEqual(desc.encoded(), bytes)
        XCTAssertEqual(BatteryLevel.percent(standard: desc), 15)
        XCTAssertEqual(BatteryLevel.percent(value: 100, form: desc.form), 100)
        XCTAssertEqual(
            BatteryLevel.percent(value: 2, form: .range(minimum: 1, maximum: 4, step: 1)), 50,
            "a range of steps is scaled into 0–100")
    }

    func testEnumerationsOfStepsAndOfPercentages() throws {
        // Canon PowerShots list 0–3 (libgphoto2 config.c `_get_BatteryLevel`); others list percentages.
        XCTAssertEqual(BatteryLevel.percent(value: 1, form: .enumeration([0, 1, 2, 3])), 33)
        XCTAssertEqual(BatteryLevel.percent(value: 3, form: .enumeration([0, 1, 2, 3])), 100)
        XCTAssertEqual(BatteryLevel.percent(value: 75, form: .enumeration([0, 25, 50, 75, 100])), 75)
        XCTAssertEqual(BatteryLevel.percent(value: 60, form: .none), 60)
        let desc = PTPDevicePropDesc(property: .batteryLevel, dataType: .uint8, current: 2, form: .enumeration([0, 1, 2, 3]))
        XCTAssertEqual(try PTPDevicePropDesc(decoding: desc.encoded()), desc)
    }

    func testSonyLevelIsSignedAndMinusOneIsUnknown() throws {
        let unknown = PTPDevicePropDesc(
            property: .sonyBatteryLevel, dataType: .int8, current: -1,
            form: .range(minimum: -1, maximum: 100, step: 1))
        let decoded = try PTPDevicePropDesc(decoding: unknown.encoded())
        XCTAssertEqual(decoded.current, -1, "INT8 is read signed")
        XCTAssertNil(BatteryLevel.percent(sony: decoded))
        var known = decoded
        known.current = 40
        XCTAssertEqual(BatteryLevel.percent(sony: known), 40)
    }

    func testAStringPropertyIsRefusedAndAHostileEnumerationCostsNothing() {
        XCTAssertThrowsError(try PTPDevicePropDesc(decoding: [0x01, 0x50, 0xFF, 0xFF, 0, 0, 0, 0])) { error in
            XCTAssertEqual(error as? PTPWireError, .unsupportedDataType(0xFFFF))
        }
        XCTAssertThrowsError(try PTPDevicePropDesc(decoding: [0x01, 0x50, 0x02, 0, 0, 100, 50, 2, 0xFF, 0x0F, 1, 2])) { error in
            XCTAssertEqual(error as? PTPWireError, .truncated(needed: 4095, available: 2))
        }
    }

    func testCanonStepsFollowLibgphoto2sTable() {
        XCTAssertEqual(
            [0, 5, 1, 4, 2].map { BatteryLevel.percent(canonEOSStep: $0) },
            [BatteryLevel.canonLowPercent, 25, 50, 75, 100])
        XCTAssertNil(BatteryLevel.percent(canonEOSStep: 3))
        XCTAssertLessThan(BatteryLevel.canonLowPercent, 20, "Low must be under the warning line")
        for percent in [0, 15, 24, 25, 49, 50, 74, 75, 99, 100] {
            let step = BatteryLevel.canonEOSStep(percent: percent)
            let shown = BatteryLevel.percent(canonEOSStep: step) ?? -1
            XCTAssertTrue(shown <= percent || percent < 25, "\(percent) % shows as \(shown) %")
        }
    }

    /// The first GetEvent reply of a real EOS body reports BatteryPower 1 (50 %) and 3075
    /// available shots.
    func testTheRealBodysEventStreamHoldsBatteryAndAvailableShots() throws {
        let list = try CanonEOSEventList.parse(try Fixtures.load("canon-eos/getevent-initial.bin"))
        let values = list.propertyValues
        XCTAssertEqual(values[.canonEOSBatteryPower], 1)
        XCTAssertEqual(values[.canonEOSBatteryPower].flatMap(BatteryLevel.percent(canonEOSStep:)), 50)
        XCTAssertEqual(values[.canonEOSAvailableShots], 3075)
        let later = CanonEOSEventList.encode([
            .propValueChanged(property: 0xD111, value: 2, raw: []), .propValueChanged(property: 0xD111, value: 0, raw: []),
        ])
        XCTAssertEqual(
            try CanonEOSEventList.parse(later).propertyValues, [.canonEOSBatteryPower: 0],
            "the last value in a reply wins")
    }

    func testStorageInfoFreeImagesUnknownIsNil() throws {
        var info = PTPStorageInfo(maxCapacity: 32_000_000_000, freeSpaceInBytes: 1_000_000, freeSpaceInImages: 99)
        XCTAssertEqual(try PTPStorageInfo(decoding: info.encoded()).freeImages, 99)
        info.freeSpaceInImages = 0xFFFF_FFFF
        XCTAssertNil(try PTPStorageInfo(decoding: info.encoded()).freeImages)
        XCTAssertEqual(info.freeSpaceInBytes, 1_000_000)
    }
}
