import XCTest

@testable import PTPWire

/// Issue 29: shutter speeds as photographers write them, the scale bodies offer, and each
/// vendor's encoding (libgphoto2 config.c).
final class ShutterSpeedTests: XCTestCase {
    private func speed(_ text: String) throws -> ShutterSpeed { try ShutterSpeed.parse(text) }

    func testTheFormsPhotographersWrite() throws {
        XCTAssertEqual(try speed("1/250"), ShutterSpeed(numerator: 1, denominator: 250))
        XCTAssertEqual(try speed("0.5"), ShutterSpeed(numerator: 1, denominator: 2))
        XCTAssertEqual(try speed("2\""), ShutterSpeed(numerator: 2, denominator: 1))
        XCTAssertEqual(try speed("30s"), ShutterSpeed(numerator: 30, denominator: 1))
        XCTAssertEqual(try speed("2/4"), ShutterSpeed(numerator: 1, denominator: 2), "kept in lowest terms")
        XCTAssertEqual(try speed("1.3").description, "1.3\"")
        XCTAssertEqual(try speed("0.3").description, "0.3\"")
        XCTAssertEqual(try speed("1/3").description, "0.3\"", "bodies mark a third of a second 0.3\"")
        XCTAssertEqual(try speed("1/4").description, "1/4")
        XCTAssertEqual(try speed("30").description, "30\"")
        for bad in ["fast", "1/0", "-1/250", "", "1/250s/2", "1e3"] {
            XCTAssertThrowsError(try speed(bad), bad) { error in
                XCTAssertTrue("\(error)".contains("1/250, 0.5, 2\", 2s or 30s"), "\(error)")
            }
        }
        XCTAssertThrowsError(try speed("1/100000")) { XCTAssertEqual($0 as? ShutterSpeedError, .outOfRange("1/100000")) }
        XCTAssertThrowsError(try speed("7200s"))
    }

    func testTheScaleAndTheNearestSpeed() throws {
        XCTAssertEqual(ShutterSpeed.thirdStops.count, 55, "30\" to 1/8000 in third stops")
        XCTAssertEqual(ShutterSpeed.thirdStops.first, try speed("30"))
        XCTAssertEqual(ShutterSpeed.thirdStops.last, try speed("1/8000"))
        XCTAssertEqual(ShutterSpeed.thirdStops, ShutterSpeed.thirdStops.sorted(by: >), "slowest first")
        let offered = try ["1/8000", "1/4000", "1/2000", "1/60", "1/50", "30"].map(speed)
        XCTAssertEqual(try speed("1/16000").nearest(in: offered), try speed("1/8000"))
        XCTAssertEqual(try speed("1/52").nearest(in: offered), try speed("1/50"), "nearer in stops")
        XCTAssertEqual(try speed("60").nearest(in: offered), try speed("30"))
        XCTAssertEqual(try speed("1/2828").nearest(in: offered), try speed("1/2000"), "of two as near, the longer")
        XCTAssertNil(try speed("1").nearest(in: []))
        XCTAssertEqual(try speed("1/250").stops(from: try speed("1/1000")), 2, accuracy: 1e-9)
    }

    /// Canon EOS 0xD102 (libgphoto2 `canon_shutterspeed`): 0x38 is 1", third-stop codes chosen
    /// where the table has a half-stop twin with the same label.
    func testCanonCodes() throws {
        XCTAssertEqual(ShutterSpeedCodes.canon.count, 74, "every row of the table reads")
        XCTAssertEqual(ShutterSpeedCodes.canonCode(for: try speed("1")), 0x38)
        XCTAssertEqual(ShutterSpeedCodes.canonCode(for: try speed("30")), 0x10)
        XCTAssertEqual(ShutterSpeedCodes.canonCode(for: try speed("1/8000")), 0xA0)
        XCTAssertEqual(ShutterSpeedCodes.canonCode(for: try speed("20")), 0x15)
        XCTAssertEqual(ShutterSpeedCodes.canonCode(for: try speed("1/60")), 0x68)
        XCTAssertNil(ShutterSpeedCodes.canonCode(for: try speed("1/7")))
        XCTAssertEqual(ShutterSpeedCodes.canonSpeed(code: 0x78), try speed("1/250"))
        XCTAssertNil(ShutterSpeedCodes.canonSpeed(code: 0x0C), "bulb")
        for mark in ShutterSpeed.thirdStops {
            let code = try XCTUnwrap(ShutterSpeedCodes.canonCode(for: mark), "\(mark)")
            XCTAssertEqual(ShutterSpeedCodes.canonSpeed(code: code), mark)
        }
    }

    /// ExposureTime 0x500D in 0.1 ms (ISO 15740), as a Nikon D5100 lists it (libgphoto2 issue
    /// 94): every value reads as the speed the body shows, and each speed writes its value.
    func testExposureTimeValues() throws {
        let shown = ShutterSpeedCodes.nikonD5100ExposureTimes.compactMap(ShutterSpeedCodes.exposureTimeSpeed)
        XCTAssertEqual(
            shown.map(\.description),
            [
                "1/4000", "1/3200", "1/2500", "1/2000", "1/1600", "1/1250", "1/1000", "1/800", "1/640", "1/500", "1/400",
                "1/320", "1/250", "1/200", "1/160", "1/125", "1/100", "1/80", "1/60", "1/50", "1/40", "1/30", "1/25",
                "1/20", "1/15", "1/13", "1/10", "1/8", "1/6", "1/5", "1/4", "0.3\"", "0.4\"", "0.5\"", "0.6\"", "0.8\"",
                "1\"", "1.3\"", "1.6\"", "2\"", "2.5\"", "3.2\"", "4\"", "5\"", "6\"", "8\"", "10\"", "13\"", "15\"",
                "20\"", "25\"", "30\"",
            ])
        XCTAssertEqual(shown.map(ShutterSpeedCodes.exposureTimeValue), ShutterSpeedCodes.nikonD5100ExposureTimes)
        XCTAssertEqual(ShutterSpeedCodes.exposureTimeValue(try speed("1/8000")), 1)
        XCTAssertNil(ShutterSpeedCodes.exposureTimeSpeed(ShutterSpeedCodes.nikonBulb))
    }

    /// Sony 0xD20D: numerator << 16 | denominator, whole seconds as tenths (libgphoto2
    /// `_get_Sony_ShutterSpeed`, `_put_Sony_ShutterSpeed`).
    func testSonyValues() throws {
        XCTAssertEqual(ShutterSpeedCodes.sonyValue(try speed("1/250")), 0x0001_00FA)
        XCTAssertEqual(ShutterSpeedCodes.sonyValue(try speed("30")), 0x012C_000A)
        XCTAssertEqual(ShutterSpeedCodes.sonyValue(try speed("1.3")), 0x000D_000A)
        XCTAssertEqual(ShutterSpeedCodes.sonySpeed(0x012C_000A), try speed("30"))
        XCTAssertNil(ShutterSpeedCodes.sonySpeed(0), "bulb")
        for mark in ShutterSpeed.thirdStops {
            XCTAssertEqual(ShutterSpeedCodes.sonySpeed(try XCTUnwrap(ShutterSpeedCodes.sonyValue(mark))), mark)
        }
    }

    func testExposureModes() {
        XCTAssertEqual(ExposureMode.standard(1), .manual)
        XCTAssertEqual(ExposureMode.standard(4), .shutterPriority)
        XCTAssertFalse(ExposureMode.standard(3).allowsSettingShutterSpeed)
        XCTAssertEqual(ExposureMode.standard(0x8010), .other("auto"))
        XCTAssertEqual(ExposureMode.canonEOS(3), .manual)
        XCTAssertEqual(ExposureMode.canonEOS(1), .shutterPriority)
        XCTAssertTrue(ExposureMode.canonEOS(1).allowsSettingShutterSpeed)
        XCTAssertFalse(ExposureMode.canonEOS(0).allowsSettingShutterSpeed)
        XCTAssertFalse(ExposureMode.canonEOS(4).allowsSettingShutterSpeed, "bulb")
        for mode in [ExposureMode.manual, .shutterPriority, .aperturePriority, .program] {
            XCTAssertEqual(ExposureMode.standard(mode.standardValue), mode)
            XCTAssertEqual(ExposureMode.canonEOS(mode.canonEOSValue), mode)
        }
    }
}
