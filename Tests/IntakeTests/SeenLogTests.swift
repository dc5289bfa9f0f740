import Foundation
import Intake
import RelayCore
import XCTest

final class SeenLogTests: XCTestCase {
    private var file: URL!

    override func setUpWithError() throws {
        file = FileManager.default.temporaryDirectory.appendingPathComponent("seen-\(UUID().uuidString)/folder.jsonl")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: file.deletingLastPathComponent())
    }

    func testRecordsSurviveReopen() throws {
        do {
            let log = try SeenLog(url: file)
            try log.record("a|1|1", file: "a.jpg")
            try log.record("b|1|1", file: "b.jpg")
        }
        let reopened = try SeenLog(url: file)
        XCTAssertTrue(reopened.contains("a|1|1"))
        XCTAssertTrue(reopened.contains("b|1|1"))
        XCTAssertEqual(reopened.count, 2)
    }

    func testATornLastLineIsDroppedAndLaterAppendsStayReadable() throws {
        do {
            let log = try SeenLog(url: file)
            try log.record("a|1|1", file: "a.jpg")
        }
        let handle = try FileHandle(forWritingTo: file)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"key":"b|1|1","fi"#.utf8))
        try handle.close()
        do {
            let log = try SeenLog(url: file)
            XCTAssertTrue(log.contains("a|1|1"))
            XCTAssertFalse(log.contains("b|1|1"), "a torn line was never committed")
            try log.record("c|1|1", file: "c.jpg")
        }
        let reopened = try SeenLog(url: file)
        XCTAssertEqual(reopened.count, 2)
        XCTAssertTrue(reopened.contains("c|1|1"))
    }

    func testAGarbledLineInTheMiddleIsAnErrorAndTheFileIsLeftAlone() throws {
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let content = Data("garbage\n{\"key\":\"a\",\"file\":\"a.jpg\",\"takenAt\":0}\n".utf8)
        try content.write(to: file)
        XCTAssertThrowsError(try SeenLog(url: file)) { error in
            XCTAssertTrue("\(error)".contains(self.file.path), "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: file), content)
    }
}
