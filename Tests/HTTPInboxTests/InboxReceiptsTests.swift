import Foundation
import HTTPInbox
import RelayCore
import XCTest

/// The inbox's answers kept across restarts: a line per photo, a torn last line dropped, any
/// other damage an error that leaves the file as it is.
final class InboxReceiptsTests: XCTestCase {
    private func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("receipts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    private let receipt = InboxReceipts.Receipt(id: "abc", name: "anna_IMG_0001.JPG", bytes: 1234, sha256: "ff00", photographer: "anna")

    func testAReceiptIsKeptUnderEachKeyAcrossAReopen() throws {
        let url = try folder().appendingPathComponent("http/receipts.jsonl")
        do {
            let receipts = try InboxReceipts(url: url)
            XCTAssertNil(receipts.receipt(for: "anna\u{0}idempotency:k1"))
            try receipts.record(receipt, keys: ["anna\u{0}idempotency:k1", "http|anna|sha256:ff00"])
        }
        let reopened = try InboxReceipts(url: url)
        XCTAssertEqual(reopened.receipt(for: "anna\u{0}idempotency:k1"), receipt)
        XCTAssertEqual(reopened.receipt(for: "http|anna|sha256:ff00"), receipt)
        XCTAssertNil(reopened.receipt(for: "ben\u{0}idempotency:k1"), "a key is one login's")
    }

    func testATornLastLineWasNeverCommittedAndIsCutOff() throws {
        let url = try folder().appendingPathComponent("receipts.jsonl")
        try InboxReceipts(url: url).record(receipt, keys: ["k1"])
        let handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"key":"k2","receipt":{"id":"#.utf8))
        try handle.close()
        let reopened = try InboxReceipts(url: url)
        XCTAssertEqual(reopened.receipt(for: "k1"), receipt)
        XCTAssertNil(reopened.receipt(for: "k2"))
        try reopened.record(receipt, keys: ["k3"])
        XCTAssertEqual(try InboxReceipts(url: url).receipt(for: "k3"), receipt, "the next line starts cleanly")
    }

    func testADamagedLineIsAnErrorAndTheFileIsLeftAsItIs() throws {
        let url = try folder().appendingPathComponent("receipts.jsonl")
        let damaged = Data("not json\n{\"key\":\"k1\"}\n".utf8)
        try damaged.write(to: url)
        XCTAssertThrowsError(try InboxReceipts(url: url)) { error in
            XCTAssertTrue("\(error)".contains("line 1"), "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: url), damaged)
    }
}
