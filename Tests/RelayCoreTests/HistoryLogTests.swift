import Foundation
import RelayCore
import XCTest

final class HistoryLogTests: XCTestCase {
    private func record(_ name: String, at seconds: Double) -> HistoryRecord {
        HistoryRecord(
            captureNumber: 1, timestamp: Date(timeIntervalSince1970: seconds), success: true, statusCode: 201,
            errorMessage: nil, requestSummary: "POST", responseSummary: nil, fileName: name, bytes: 1,
            durationSeconds: 0, attempt: 1)
    }

    func testRecordsStayNewestFirstWhenTheyArriveOutOfOrder() {
        var log = HistoryLog()
        log.add(record("a", at: 10))
        log.add(record("c", at: 30))
        log.add(record("b", at: 20))  // stamped before "c" by another worker, added after it
        XCTAssertEqual(log.records.map(\.fileName), ["c", "b", "a"])
    }

    func testOnlyTheNewestHundredAreKept() {
        var log = HistoryLog()
        for index in 0..<120 { log.add(record("\(index)", at: Double(index))) }
        XCTAssertEqual(log.records.count, HistoryLog.limit)
        XCTAssertEqual(log.records.first?.fileName, "119")
        XCTAssertEqual(log.records.last?.fileName, "20")
    }
}
