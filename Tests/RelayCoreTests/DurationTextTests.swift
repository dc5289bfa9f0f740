import RelayCore
import XCTest

final class DurationTextTests: XCTestCase {
    func testEveryUnitAndTheBareNumber() {
        let cases: [(String, Double)] = [
            ("500ms", 0.5), ("1.5", 1.5), ("12", 12), ("30s", 30), ("5m", 300), ("1.5h", 5400), ("1d", 86_400),
            ("2S", 2), ("250MS", 0.25), (" 10s ", 10), ("0", 0), ("0.05s", 0.05), ("007s", 7), ("3650d", DurationText.longest),
        ]
        for (text, seconds) in cases {
            XCTAssertEqual(DurationText.seconds(text), seconds, text)
        }
    }

    func testWhatIsRefused() {
        for bad in [
            "", " ", "s", "-5s", "+5s", "-1", "nan", "NaN", "inf", "infinity", "1e3", "1e400", "1.5.2s", "1.s", ".5s", "5 m",
            "5x", "1w", "5sec", "5mins", "--3s", "0x10", "3651d", String(repeating: "9", count: 400), "١٢s",
        ] {
            XCTAssertNil(DurationText.seconds(bad), bad)
        }
    }

    func testParseNamesTheOptionTheFormsAndTheRange() {
        XCTAssertEqual(try DurationText.parse("2m", option: "--grace", in: 0...3600), 120)
        XCTAssertThrowsError(try DurationText.parse("soon", option: "--grace", in: 0...3600)) { error in
            XCTAssertEqual(
                "\(error)",
                "--grace 'soon' is not a duration: give a number with a unit ms, s, m, h or d "
                    + "(e.g. 500ms, 30s, 5m, 1.5h, 1d; a bare number is seconds)")
        }
        XCTAssertThrowsError(try DurationText.parse("2h", option: "--wait", in: 1...3600)) { error in
            XCTAssertEqual("\(error)", "--wait '2h' is out of range: give a duration from 1s to 1h")
        }
        XCTAssertThrowsError(try DurationText.parse("0.5ms", option: "--retry-base", in: 0.001...60))
    }

    func testFormatIsReadBackAsTheSameDuration() {
        XCTAssertEqual(DurationText.format(0.5), "500ms")
        XCTAssertEqual(DurationText.format(15), "15s")
        XCTAssertEqual(DurationText.format(1.5), "1.5s")
        XCTAssertEqual(DurationText.format(300), "5m")
        XCTAssertEqual(DurationText.format(3600), "1h")
        XCTAssertEqual(DurationText.format(86_400), "1d")
        XCTAssertEqual(DurationText.format(0), "0s")
        for seconds: Double in [0, 0.001, 0.05, 0.5, 1, 1.5, 15, 90, 300, 5400, 86_400, 7 * 86_400, DurationText.longest] {
            XCTAssertEqual(DurationText.seconds(DurationText.format(seconds)), seconds, "\(seconds)")
        }
    }
}
