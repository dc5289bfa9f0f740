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

    /// Issue 28: a season-long log (a busy body's 200,000 photos) must not slow a start or fill
    /// memory. Past 1,000 lines a start writes an index of digests beside the log; the next start
    /// reads it and parses only the lines after it, and finds every key and file name as before.
    func testALongLogIsIndexedAndReadBackWithEveryKey() throws {
        do {
            let log = try SeenLog(url: file, tracksFiles: true)
            try log.record((0..<1500).map { ("key-\($0)", "DSC_\($0).JPG") })
        }
        let index = file.appendingPathExtension("idx")
        XCTAssertFalse(FileManager.default.fileExists(atPath: index.path), "made by a start, not by appends")
        do {
            let log = try SeenLog(url: file, tracksFiles: true)
            XCTAssertEqual(log.count, 1500)
            try log.record("key-1500", file: "DSC_1500.JPG")
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: index.path))
        let reopened = try SeenLog(url: file, tracksFiles: true)
        XCTAssertEqual(reopened.count, 1501, "the index's keys and the line after it")
        XCTAssertTrue(reopened.contains("key-0") && reopened.contains("key-1499") && reopened.contains("key-1500"))
        XCTAssertFalse(reopened.contains("key-1501"))
        XCTAssertTrue(reopened.containsFile("DSC_7.JPG") && reopened.containsFile("DSC_1500.JPG"))
        XCTAssertFalse(reopened.containsFile("DSC_9999.JPG"))
    }

    /// The log is the record: an index that does not match it (the log was replaced, or the
    /// index damaged) is ignored, and the log read whole.
    func testAnIndexThatDoesNotMatchTheLogIsIgnored() throws {
        do {
            let log = try SeenLog(url: file, tracksFiles: true)
            try log.record((0..<1200).map { ("key-\($0)", "DSC_\($0).JPG") })
        }
        _ = try SeenLog(url: file, tracksFiles: true)  // writes the index
        var text = try String(contentsOf: file, encoding: .utf8)
        text = text.replacingOccurrences(of: "\"key-1199\"", with: "\"key-9999\"")
        try Data(text.utf8).write(to: file)
        let replaced = try SeenLog(url: file, tracksFiles: true)
        XCTAssertTrue(replaced.contains("key-9999"), "the log's own line, not the index's digest")
        XCTAssertFalse(replaced.contains("key-1199"))

        let index = file.appendingPathExtension("idx")
        var damaged = try Data(contentsOf: index)
        damaged[damaged.count - 3] ^= 0xFF
        try damaged.write(to: index)
        let reread = try SeenLog(url: file, tracksFiles: true)
        XCTAssertEqual(reread.count, 1200)
        XCTAssertTrue(reread.contains("key-0") && reread.contains("key-9999"))
        XCTAssertTrue(reread.containsFile("DSC_1199.JPG"), "the damaged digest was not taken: the log was read")
        XCTAssertNotEqual(try Data(contentsOf: index), damaged, "and the index was made again")
    }
}
