import Capture
import Foundation
import XCTest

final class CaptureTimingTests: XCTestCase {
    func testIntervalsAndRunLengthsReadRelaysDurationGrammar() throws {
        let cases: [(String, Double)] = [("30s", 30), ("5m", 300), ("1.5h", 5400), ("1d", 86_400), ("12", 12), ("2S", 2), ("1500ms", 1.5)]
        for (text, seconds) in cases {
            XCTAssertEqual(try CaptureTiming.interval(text).seconds, seconds, text)
            XCTAssertEqual(try CaptureTiming.runLength(text), seconds, text)
        }
        for bad in ["", "s", "5x", "abc", "1w", "5 m", "nan", "1e400", "--3s", "-nan", "1.5.2s"] {
            XCTAssertThrowsError(try CaptureTiming.interval(bad), bad)
            XCTAssertThrowsError(try CaptureTiming.runLength(bad), bad)
        }
    }

    func testTheIntervalIsRaisedToOneSecondAndSaysSo() throws {
        XCTAssertEqual(try CaptureTiming.interval("2s").seconds, 2)
        XCTAssertNil(try CaptureTiming.interval("1s").note)
        for small in ["0", "0s", "-5s", "0.5s", "-1"] {
            let result = try CaptureTiming.interval(small)
            XCTAssertEqual(result.seconds, 1, small)
            XCTAssertEqual(result.note, "--every \(small) is under the 1 second minimum between shots; using 1s")
        }
    }

    func testABadDurationNamesTheAcceptedForms() {
        XCTAssertThrowsError(try CaptureTiming.interval("every minute")) { error in
            XCTAssertEqual(
                "\(error)",
                "--every 'every minute' is not a duration: give a number with a unit ms, s, m, h or d "
                    + "(e.g. 500ms, 30s, 5m, 1.5h, 1d; a bare number is seconds)")
        }
        XCTAssertThrowsError(try CaptureTiming.runLength("0s"))
        XCTAssertThrowsError(try CaptureTiming.runLength("-1m"))
    }

    func testEndTimes() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Berlin")!
        let now = calendar.date(from: DateComponents(year: 2026, month: 11, day: 23, hour: 18, minute: 30))!
        let later = try CaptureTiming.endTime("19:15", now: now, calendar: calendar)
        XCTAssertEqual(later.timeIntervalSince(now), 45 * 60)
        let tomorrow = try CaptureTiming.endTime("07:00:30", now: now, calendar: calendar)
        XCTAssertEqual(tomorrow.timeIntervalSince(now), 12.5 * 3600 + 30)
        let dated = try CaptureTiming.endTime("2026-11-24T06:30", now: now, calendar: calendar)
        XCTAssertEqual(dated.timeIntervalSince(now), 12 * 3600)
        XCTAssertThrowsError(try CaptureTiming.endTime("2026-11-22T06:30", now: now, calendar: calendar)) { error in
            XCTAssertEqual(error as? CaptureTimingError, .pastTime("2026-11-22T06:30"))
        }
        for bad in ["25:00", "7pm", "12:60", "2026-13-01T10:00", "T10:00", "10"] {
            XCTAssertThrowsError(try CaptureTiming.endTime(bad, now: now, calendar: calendar), bad)
        }
    }
}
